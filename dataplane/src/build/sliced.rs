//! Sliced source-side header builder. PLACEHOLDER: replaced by the sliced work.
