//! PathId header body. PLACEHOLDER: replaced by the pathid work.
