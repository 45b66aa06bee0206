//! Transit header body. PLACEHOLDER: replaced by the transit work.
