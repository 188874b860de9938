//! TLS for outgoing HTTPS (webhook targets): rustls with the ring provider, installed once
//! per process before any HTTP client is built.

/// Installs ring as the process's rustls provider, unless one is installed already.
pub fn install_crypto() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}
