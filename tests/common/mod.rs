//! Shared helpers of the integration tests: namespaces and raw sockets (`netns`), test
//! frames and their payload (`frames`), the k=4 edge-switch fixture (`edge`), engine
//! checks (`engine`) and thread pinning/CPU time (`sys`).
pub mod backend;
pub mod edge;
pub mod engine;
pub mod frames;
pub mod netns;
pub mod sys;
