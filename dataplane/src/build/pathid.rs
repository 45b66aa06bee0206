//! PathId source-side header builder. PLACEHOLDER: replaced by the pathid work.
