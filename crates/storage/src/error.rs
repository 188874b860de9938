//! Storage errors. Unique violations are recognised on both backends so callers can turn
//! them into validation errors instead of failures.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A unique index refused the write; `target` names the index (PostgreSQL) or the
    /// `table.column` list (SQLite).
    #[error("unique constraint violated: {target}")]
    UniqueViolation { target: String },
    #[error("database error: {0}")]
    Database(sqlx::Error),
    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{0}")]
    Config(String),
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Whether this is a unique violation on `table.column` (indexes are named
    /// `{table}_{column}_key`, so both backends' reports can be recognised).
    pub fn is_unique_violation_on(&self, table: &str, column: &str) -> bool {
        match self {
            Error::UniqueViolation { target } => {
                target == &format!("{table}_{column}_key")
                    || target.contains(&format!("{table}.{column}"))
            }
            _ => false,
        }
    }
}

impl From<sqlx::Error> for Error {
    fn from(err: sqlx::Error) -> Self {
        if let Some(db) = err.as_database_error()
            && db.is_unique_violation()
        {
            let target = db
                .constraint()
                .map_or_else(|| db.message().to_owned(), str::to_owned);
            return Error::UniqueViolation { target };
        }
        Error::Database(err)
    }
}
