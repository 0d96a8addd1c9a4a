//! The command-line layer: parses arguments, sets up printing, dispatches to a command, and maps the
//! outcome to an exit code. It owns no tuning logic (see `commands`).

pub mod args;

use crate::errors::Error;
use crate::exit_codes;
use crate::report::Printer;
use args::{Cargo, ColorArg, Command};
use clap::Parser;
use std::ffi::OsString;
use std::io::IsTerminal;

/// Runs the tool on `argv` (as the OS gave it) and returns the exit code.
pub fn main(mut argv: Vec<OsString>) -> i32 {
    // `cargo ascend-tune x` runs us as `cargo-ascend-tune ascend-tune x`; run directly, we add the word.
    if argv.get(1).is_none_or(|a| a != "ascend-tune") {
        argv.insert(1.min(argv.len()), "ascend-tune".into());
    }
    let Cargo::AscendTune(args) = match Cargo::try_parse_from(&argv) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                exit_codes::BAD_INPUT
            } else {
                exit_codes::OK
            };
        }
    };
    let color = match args.common.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    };
    let printer = Printer {
        format: args.common.message_format,
        quiet: args.common.quiet,
        verbose: args.common.verbose,
        color,
    };
    let result = match args.command {
        Command::Run(a) => crate::commands::run::run(&args.common, &a, &printer),
        Command::Tune(a) => crate::commands::dispatch::tune(&args.common, &a, &printer),
        Command::Check(a) => crate::commands::check::check(&args.common, &a, &printer),
        Command::Init(a) => std::env::current_dir()
            .map_err(|e| Error::io("could not read", ".", e))
            .and_then(|cwd| {
                crate::commands::init::init(
                    &cwd,
                    args.common.soc.as_deref(),
                    &a.shape,
                    a.force,
                    crate::commands::init::TunableOptions {
                        tunables_only: a.tunables_only,
                        probe: !a.no_probe,
                        probe_seconds: a.probe_seconds,
                    },
                    &printer,
                )
            }),
        Command::Bank(a) => crate::commands::bank::bank(&args.common, &a, &printer),
        Command::Report(a) => crate::commands::report::report(&args.common, &a, &printer),
        Command::Bench(a) => crate::commands::dispatch::bench(&args.common, &a, &printer),
        Command::CmakeModule(a) => crate::commands::cmake_module::cmake_module(&a.dir, &printer),
        Command::TwinPackage(a) => crate::commands::twin_package::twin_package(&a.dir, &printer),
        Command::ModelTrace(a) => crate::commands::model_trace::model_trace(
            &a.traces,
            args.common.soc.as_deref(),
            &printer,
        ),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            printer.error(&e);
            e.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::args::*;
    use clap::Parser;

    fn parse(line: &str) -> Result<Cargo, clap::Error> {
        Cargo::try_parse_from(line.split_whitespace())
    }

    #[test]
    fn valid_command_lines() {
        for line in [
            "cargo ascend-tune run",
            "cargo ascend-tune run --op add_custom --trace t.json",
            "cargo ascend-tune tune --budget 32 --seed 1 --strategy host --jobs 2 --dry-run --allow-dirty --no-rewrite",
            "cargo ascend-tune check --tolerance 5 --locked --op x",
            "cargo ascend-tune --manifest-path a/ascend.toml --backend twin --soc Ascend910B3 --message-format json -q tune",
            "cargo ascend-tune tune -v --color never",
            "cargo ascend-tune tune --time-limit 20m --strategy best-of-n",
            "cargo ascend-tune bank list",
            "cargo ascend-tune init",
            "cargo ascend-tune cmake-module cmake",
            "cargo ascend-tune twin-package target/twin-package",
            "cargo ascend-tune tune --workspace --budget 4",
            "cargo ascend-tune check --locked --junit report.xml --workspace",
        ] {
            assert!(parse(line).is_ok(), "{line}: {:?}", parse(line).err());
        }
    }

    #[test]
    fn invalid_command_lines() {
        for line in [
            "cargo ascend-tune",
            "cargo ascend-tune tune --budget 0",
            "cargo ascend-tune tune --strategy annealing",
            "cargo ascend-tune --backend gpu run",
            "cargo ascend-tune check --tolerance lots",
            "cargo ascend-tune tune --time-limit 5y",
            "cargo ascend-tune tune --time-limit 0",
            "cargo ascend-tune frobnicate",
            "cargo ascend-tune cmake-module",
            "cargo ascend-tune twin-package",
            "cargo ascend-tune check --junit",
        ] {
            assert!(parse(line).is_err(), "{line} should not parse");
        }
    }

    #[test]
    fn direct_and_cargo_invocations_agree() {
        let direct = super::main(vec!["cargo-ascend-tune".into(), "--version".into()]);
        let via_cargo = super::main(vec![
            "cargo-ascend-tune".into(),
            "ascend-tune".into(),
            "--version".into(),
        ]);
        assert_eq!((direct, via_cargo), (0, 0));
    }
}
