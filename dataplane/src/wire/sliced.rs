//! Sliced header body. PLACEHOLDER: replaced by the sliced work.
