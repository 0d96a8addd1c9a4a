//! `bank mine|list|show|motifs`: mining lessons into a bank file, and reading banks and the motif
//! catalogue. The bank `list` and `show` read is the one `tune` would use here (`Bank::chosen`):
//! `--bank FILE`, else the built-in lessons plus `ascend-bank.toml` in the current folder.

use crate::bank::mine::{self, MineOptions, Outcome};
use crate::bank::{self, Bank};
use crate::cli::args::{BankAction, BankArgs, BankListArgs, BankMineArgs, BankShowArgs, Common};
use crate::errors::{Error, Result};
use crate::exit_codes;
use crate::report::Printer;
use crate::rewrite::motifs;
use serde_json::json;
use std::path::PathBuf;

pub fn bank(common: &Common, args: &BankArgs, printer: &Printer) -> Result<i32> {
    match &args.action {
        BankAction::Mine(a) => mine_cmd(common, a, printer),
        BankAction::List(a) => list(a, printer),
        BankAction::Show(a) => show(a, printer),
        BankAction::Motifs => motif_catalogue(printer),
        BankAction::Sites(a) => sites(common, a, printer),
    }
}

fn cwd() -> Result<PathBuf> {
    std::env::current_dir().map_err(|e| Error::io("could not read", ".", e))
}

fn mine_cmd(common: &Common, args: &BankMineArgs, printer: &Printer) -> Result<i32> {
    if !(args.threshold.is_finite() && args.threshold >= 0.0) {
        return Err(Error::bad_input(
            format!("--threshold {} is not a percentage", args.threshold),
            Some("give the smallest slowdown worth keeping, e.g. --threshold 2".into()),
        ));
    }
    if let Some(names) = &args.motifs {
        for n in names {
            if motifs::by_name(n).is_none() {
                return Err(Error::bad_input(
                    format!("unknown motif `{n}`"),
                    Some(format!("use one of: {}", motifs::names().join(", "))),
                ));
            }
        }
    }
    let (projects, work_root) = if args.projects.is_empty() {
        let session = super::Session::open(common)?;
        (vec![session.manifest.root.clone()], session.work.clone())
    } else {
        (
            crate::project::operator_projects(&args.projects, false)?,
            cwd()?.join("target/ascend-tune"),
        )
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| bank::default_path(&cwd().unwrap_or_default()));
    let opts = MineOptions {
        projects,
        ops: args.ops.clone(),
        motifs: args.motifs.clone(),
        threshold: 1.0 + args.threshold / 100.0,
        soc: common.soc.clone(),
        backend: common.backend.map(Into::into),
        work: work_root.join("mine"),
        cache: work_root.join("cache"),
    };
    let report = mine::mine(&opts, &mut |r| {
        let what = match &r.outcome {
            Outcome::Lesson(l) => format!("lesson, {:.3}x slower rewound", l.gain),
            Outcome::Small(g) => format!("{g:.3}x, below the threshold"),
            Outcome::Failed(why) => format!("rewind failed: {why}"),
        };
        if printer.json() {
            let (outcome, gain) = match &r.outcome {
                Outcome::Lesson(l) => ("lesson", Some(l.gain)),
                Outcome::Small(g) => ("small", Some(*g)),
                Outcome::Failed(_) => ("failed", None),
            };
            println!(
                "{}",
                json!({"reason": "rewind", "op": r.op, "motif": r.motif, "file": r.file, "line": r.line, "outcome": outcome, "gain": gain})
            );
        }
        printer.status(
            "Rewound",
            format!("{} {} at {}:{}: {what}", r.op, r.motif, r.file, r.line),
        );
    })?;
    for (op, why) in &report.skipped {
        printer.warn(format!("op `{op}` was not mined: {why}"));
    }
    let lessons = report.lessons();
    let mut bank = if out.is_file() {
        Bank::load(&out)?
    } else {
        Bank::default()
    };
    let kept = lessons.len();
    bank.merge(lessons);
    bank.write(&out)?;
    let failed = report
        .rewinds
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed(_)))
        .count();
    printer.status(
        "Mined",
        format!(
            "{kept} lessons from {} rewinds ({failed} failed) into {}",
            report.rewinds.len(),
            out.display()
        ),
    );
    Ok(exit_codes::OK)
}

fn list(args: &BankListArgs, printer: &Printer) -> Result<i32> {
    let bank = Bank::chosen(args.bank.as_deref(), Some(&cwd()?))?;
    let shown: Vec<(usize, &bank::Lesson)> = bank
        .lessons
        .iter()
        .enumerate()
        .filter(|(_, l)| args.motif.as_ref().is_none_or(|m| &l.motif == m))
        .filter(|(_, l)| args.op.as_ref().is_none_or(|o| &l.op == o))
        .map(|(i, l)| (i + 1, l))
        .collect();
    if printer.json() {
        for (i, l) in &shown {
            println!(
                "{}",
                json!({"reason": "lesson", "index": i, "motif": l.motif, "op": l.op, "gain": l.gain,
                       "before": l.before, "after": l.after, "file": l.file, "line": l.line,
                       "modelled": l.modelled})
            );
        }
        return Ok(exit_codes::OK);
    }
    println!("{} ({} lessons)", bank.source, bank.lessons.len());
    if shown.is_empty() {
        println!(
            "no lessons{}",
            if bank.lessons.is_empty() {
                "; mine some with `cargo ascend-tune bank mine`"
            } else {
                " match"
            }
        );
        return Ok(exit_codes::OK);
    }
    println!(
        "{:>4}  {:<26} {:<20} {:>7}  {:<22} latency",
        "#", "motif", "op", "gain", "bound slow -> fast"
    );
    for (i, l) in shown {
        println!(
            "{i:>4}  {:<26} {:<20} {:>6.3}x  {:<22} {:.3} -> {:.3} us {}",
            l.motif,
            l.op,
            l.gain,
            format!("{} -> {}", l.before.bound, l.after.bound),
            l.before.latency_us,
            l.after.latency_us,
            crate::report::provenance(l.modelled)
        );
    }
    Ok(exit_codes::OK)
}

fn show(args: &BankShowArgs, printer: &Printer) -> Result<i32> {
    let bank = Bank::chosen(args.bank.as_deref(), Some(&cwd()?))?;
    let picked: Vec<(usize, &bank::Lesson)> = match args.lesson.parse::<usize>() {
        Ok(i) if (1..=bank.lessons.len()).contains(&i) => vec![(i, &bank.lessons[i - 1])],
        Ok(i) => {
            return Err(Error::bad_input(
                format!(
                    "{}: no lesson {i} (it holds {})",
                    bank.source,
                    bank.lessons.len()
                ),
                Some("`cargo ascend-tune bank list` shows the indices".into()),
            ));
        }
        Err(_) => {
            let found: Vec<_> = bank
                .lessons
                .iter()
                .enumerate()
                .filter(|(_, l)| l.motif == args.lesson)
                .map(|(i, l)| (i + 1, l))
                .collect();
            if found.is_empty() {
                return Err(Error::bad_input(
                    format!("{}: no lesson of motif `{}`", bank.source, args.lesson),
                    Some(format!(
                        "give an index from `bank list` or a motif with lessons; motifs: {}",
                        motifs::names().join(", ")
                    )),
                ));
            }
            found
        }
    };
    for (i, l) in picked {
        if printer.json() {
            let mut v = serde_json::to_value(l).unwrap_or_default();
            v["reason"] = json!("lesson");
            v["index"] = json!(i);
            println!("{v}");
            continue;
        }
        println!("lesson {i}: {} on {} ({})", l.motif, l.op, l.site);
        println!(
            "  where:  {}:{} ({}, {} on {}, {})",
            l.file,
            l.line,
            l.shape,
            l.soc,
            l.backend,
            crate::report::provenance(l.modelled)
        );
        println!(
            "  gain:   {:.3}x ({:.3} us slow, {:.3} us optimised)",
            l.gain, l.before.latency_us, l.after.latency_us
        );
        for (label, p) in [("slow", &l.before), ("fast", &l.after)] {
            let pipes: Vec<String> = p
                .pipes
                .iter()
                .filter(|(_, r)| **r > 0.0)
                .map(|(k, r)| format!("{k} {r:.2}"))
                .collect();
            println!("  {label}:   {}-bound; {}", p.bound, pipes.join(", "));
        }
        println!("{}", l.diff);
    }
    Ok(exit_codes::OK)
}

/// `bank sites`: per op and motif, where it applies and where it rewinds; then the totals per motif.
fn sites(
    common: &Common,
    args: &crate::cli::args::BankSitesArgs,
    printer: &Printer,
) -> Result<i32> {
    // No projects named: the one `--manifest-path` names, else the one around the current folder.
    let projects = if args.projects.is_empty() {
        vec![super::Session::open(common)?.manifest.root.clone()]
    } else {
        crate::project::operator_projects(&args.projects, false)?
    };
    let mut totals: Vec<(&str, usize, usize, usize)> = vec![];
    for project in projects {
        let manifest = crate::manifest::Manifest::load(&project.join(crate::manifest::FILE_NAME))?;
        for op in &manifest.ops {
            for (motif, apply, rewind) in crate::bank::mine::sites(&manifest, op)? {
                let i = match totals.iter().position(|t| t.0 == motif) {
                    Some(i) => i,
                    None => {
                        totals.push((motif, 0, 0, 0));
                        totals.len() - 1
                    }
                };
                totals[i].1 += apply.len();
                totals[i].2 += rewind.len();
                totals[i].3 += usize::from(!apply.is_empty() || !rewind.is_empty());
                if apply.is_empty() && rewind.is_empty() {
                    continue;
                }
                if printer.json() {
                    println!(
                        "{}",
                        json!({"reason": "sites", "op": op.name, "motif": motif, "apply": apply, "rewind": rewind})
                    );
                } else {
                    println!(
                        "{:<28} {:<24} apply {:>3}  rewind {:>3}  {}",
                        op.name,
                        motif,
                        apply.len(),
                        rewind.len(),
                        apply
                            .iter()
                            .chain(&rewind)
                            .take(4)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                }
            }
        }
    }
    for (motif, apply, rewind, ops) in totals {
        if printer.json() {
            println!(
                "{}",
                json!({"reason": "sites-total", "motif": motif, "apply": apply, "rewind": rewind, "ops": ops})
            );
        } else {
            println!("total {motif:<24} apply {apply:>4}  rewind {rewind:>4}  in {ops} op(s)");
        }
    }
    Ok(exit_codes::OK)
}

fn motif_catalogue(printer: &Printer) -> Result<i32> {
    for m in motifs::ALL {
        let scope = match m.scope() {
            crate::rewrite::motif::Scope::Kernel => "kernel",
            crate::rewrite::motif::Scope::Host => "host",
        };
        if printer.json() {
            println!(
                "{}",
                json!({"reason": "motif", "name": m.name(), "edits": scope, "summary": m.summary(), "preserves_meaning_when": m.preserves_meaning_when(), "host_companion": m.host_companion()})
            );
        } else {
            let with = m
                .host_companion()
                .map(|c| format!(" (with {c} in the host files)"))
                .unwrap_or_default();
            println!(
                "{} [{scope}]{with}\n  {}\n  preserves meaning when: {}\n",
                m.name(),
                m.summary(),
                m.preserves_meaning_when()
            );
        }
    }
    Ok(exit_codes::OK)
}
