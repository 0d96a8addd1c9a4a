//! `[project] executor` and the `[slurm]` table: where `tune` and `bench` run their per-op work, as the
//! manifest says it. Validation only (spans, messages, fixes); submitting jobs is `crate::executor`'s.

use super::{ManifestError, ManifestSource, wire};
use std::ops::Range;
use toml::Spanned;

/// Where per-op work runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutorKind {
    /// On this machine, one op after another (the default).
    #[default]
    Local,
    /// One Slurm job per op, submitted with `sbatch`.
    Slurm,
}

impl ExecutorKind {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "local" => Some(Self::Local),
            "slurm" => Some(Self::Slurm),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Local => "local",
            Self::Slurm => "slurm",
        }
    }
}

/// The `[slurm]` table: what every job of this project is submitted with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SlurmSettings {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--account`.
    pub account: Option<String>,
    /// `--time`, in a form sbatch accepts (`minutes`, `MM:SS`, `HH:MM:SS`, `D-HH`, `D-HH:MM`, `D-HH:MM:SS`).
    pub time_limit: Option<String>,
    /// `--gres`, e.g. `npu:1`.
    pub gres: Vec<String>,
    /// Further `sbatch` options, passed as they are, e.g. `["--qos=short", "--exclusive"]`.
    pub sbatch_args: Vec<String>,
}

fn span<T>(s: &Spanned<T>) -> Range<usize> {
    s.span()
}

/// Reads `[project] executor` (its value and span, when given).
pub fn executor(
    source: &ManifestSource,
    value: Option<Spanned<String>>,
) -> Result<ExecutorKind, ManifestError> {
    let Some(v) = value else {
        return Ok(ExecutorKind::Local);
    };
    ExecutorKind::parse(v.get_ref()).ok_or_else(|| {
        source.error(
            span(&v),
            format!("unknown executor `{}`", v.get_ref()),
            Some(
                "use `local` (this machine) or `slurm` (one sbatch job per op; see [slurm])".into(),
            ),
        )
    })
}

/// Validates the `[slurm]` table.
pub fn slurm(
    source: &ManifestSource,
    table: Option<Spanned<wire::Slurm>>,
) -> Result<SlurmSettings, ManifestError> {
    let Some(table) = table else {
        return Ok(SlurmSettings::default());
    };
    let t = table.into_inner();
    let text = |v: Option<Spanned<String>>, key: &str| -> Result<Option<String>, ManifestError> {
        match v {
            Some(s)
                if s.get_ref().trim().is_empty() || s.get_ref().contains(char::is_whitespace) =>
            {
                Err(source.error(
                    span(&s),
                    format!("`{key}` must be one word, without blanks"),
                    Some(format!("e.g. {key} = \"debug\", or remove the key")),
                ))
            }
            Some(s) => Ok(Some(s.into_inner())),
            None => Ok(None),
        }
    };
    let partition = text(t.partition, "partition")?;
    let account = text(t.account, "account")?;
    let time_limit = match t.time_limit {
        Some(s) if !is_slurm_time(s.get_ref()) => {
            return Err(source.error(
                span(&s),
                format!("`{}` is not a Slurm time limit", s.get_ref()),
                Some("use minutes (\"90\"), \"HH:MM:SS\" or \"D-HH:MM:SS\", as sbatch --time takes them".into()),
            ));
        }
        s => s.map(Spanned::into_inner),
    };
    let mut gres = vec![];
    for g in t.gres {
        if !is_gres(g.get_ref()) {
            return Err(source.error(
                span(&g),
                format!("`{}` is not a generic resource", g.get_ref()),
                Some("write NAME[:TYPE]:COUNT, e.g. \"npu:1\" (one NPU per job)".into()),
            ));
        }
        gres.push(g.into_inner());
    }
    let mut sbatch_args = vec![];
    for a in t.sbatch_args {
        if !a.get_ref().starts_with('-') {
            return Err(source.error(
                span(&a),
                format!("`{}` is not an sbatch option", a.get_ref()),
                Some(
                    "give each option as one string starting with '-', e.g. \"--qos=short\"".into(),
                ),
            ));
        }
        sbatch_args.push(a.into_inner());
    }
    Ok(SlurmSettings {
        partition,
        account,
        time_limit,
        gres,
        sbatch_args,
    })
}

/// The forms `sbatch --time` takes: `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`, and `UNLIMITED`.
fn is_slurm_time(s: &str) -> bool {
    if s.eq_ignore_ascii_case("unlimited") || s.eq_ignore_ascii_case("infinite") {
        return true;
    }
    let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let (days, rest) = match s.split_once('-') {
        Some((d, r)) => (Some(d), r),
        None => (None, s),
    };
    if days.is_some_and(|d| !digits(d)) {
        return false;
    }
    let parts: Vec<&str> = rest.split(':').collect();
    // MM, MM:SS, HH:MM:SS; after `D-`: HH, HH:MM, HH:MM:SS.
    parts.len() <= 3 && parts.iter().all(|p| digits(p))
}

/// `NAME[:TYPE]:COUNT` or `NAME` (count 1).
fn is_gres(s: &str) -> bool {
    let parts: Vec<&str> = s.split(':').collect();
    let word = |p: &str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
    };
    match parts.as_slice() {
        [name] => word(name),
        [name, count] => {
            word(name) && count.bytes().all(|b| b.is_ascii_digit()) && !count.is_empty()
        }
        [name, ty, count] => {
            word(name) && word(ty) && !count.is_empty() && count.bytes().all(|b| b.is_ascii_digit())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_time_forms() {
        for ok in [
            "90",
            "10:00",
            "1:30:00",
            "2-12",
            "2-12:00",
            "2-12:00:00",
            "UNLIMITED",
        ] {
            assert!(is_slurm_time(ok), "{ok}");
        }
        for bad in ["", "1h", "10:", "-3", "1:2:3:4", "a-1"] {
            assert!(!is_slurm_time(bad), "{bad}");
        }
    }

    #[test]
    fn gres_forms() {
        for ok in ["npu", "npu:1", "npu:910b:2", "gpu:a100:8"] {
            assert!(is_gres(ok), "{ok}");
        }
        for bad in ["", "npu:", "npu:x", "npu 1", "a:b:c:1"] {
            assert!(!is_gres(bad), "{bad}");
        }
    }
}
