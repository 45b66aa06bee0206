//! Transit source-side header builder. PLACEHOLDER: replaced by the transit work.
