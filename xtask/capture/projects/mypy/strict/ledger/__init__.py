"""A ledger written without annotations, checked in strict mode."""
