pub mod scalar;
