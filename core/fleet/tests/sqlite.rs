//! What only the SQLite backend has.
