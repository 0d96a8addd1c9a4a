//! The top tier of errors: one type that every command returns, mapping each kind of failure to an exit
//! code of the contract. Library modules keep their own error types with paths and spans; this module only
//! gathers them. It knows nothing of how errors are printed (see `report`).

use crate::exit_codes;
use miette::Diagnostic;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Manifest(#[from] crate::manifest::ManifestError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Lockfile(#[from] crate::lockfile::LockError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),

    /// Bad flags or a project the tool cannot work on.
    #[error("{message}")]
    BadInput {
        message: String,
        #[help]
        help: Option<String>,
    },

    /// A command or option of the contract that a later piece of work builds.
    #[error("{what} is not built yet")]
    #[diagnostic(help("{plan}"))]
    NotBuilt { what: String, plan: String },

    /// Tuning ran but found nothing that builds, runs and gives the right answer (exit 1).
    #[error("{0}")]
    NoValidCandidate(String),

    /// `check` found ops slower than locked, or stale under `--locked` (exit 1). The report was printed.
    #[error("{0}")]
    CheckFailed(String),

    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Manifest(_)
            | Error::Lockfile(_)
            | Error::Workspace(_)
            | Error::BadInput { .. }
            | Error::NotBuilt { .. } => exit_codes::BAD_INPUT,
            Error::NoValidCandidate(_) | Error::CheckFailed(_) => exit_codes::FAILED,
            Error::Io { .. } | Error::Internal(_) => exit_codes::INTERNAL,
        }
    }

    pub fn bad_input(message: impl Into<String>, help: impl Into<Option<String>>) -> Self {
        Error::BadInput {
            message: message.into(),
            help: help.into(),
        }
    }

    pub fn not_built(what: impl Into<String>, plan: impl Into<String>) -> Self {
        Error::NotBuilt {
            what: what.into(),
            plan: plan.into(),
        }
    }

    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
