//! The HTTP side of telemetry: `/metrics` and `/status.json` served at
//! `--metrics ADDR`.

use std::net::SocketAddr;
use std::sync::Arc;

use super::Telemetry;

/// Serves `/metrics` and `/status.json` on `addr` from a thread of its own;
/// returns the bound address (port 0 picks a free one).
pub fn serve(addr: &str, telemetry: Arc<Telemetry>) -> Result<SocketAddr, String> {
    let server = tiny_http::Server::http(addr)
        .map_err(|e| format!("--metrics {addr}: cannot listen: {e}"))?;
    let bound = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| format!("--metrics {addr}: not a TCP address"))?;
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            for request in server.incoming_requests() {
                let (body, content_type, code) = match request.url() {
                    "/metrics" => (
                        telemetry.render(),
                        "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        200,
                    ),
                    "/status.json" => (telemetry.report_json(), "application/json", 200),
                    _ => (
                        "not found: try /metrics or /status.json\n".to_string(),
                        "text/plain",
                        404,
                    ),
                };
                let mut response = tiny_http::Response::from_string(body).with_status_code(code);
                if let Ok(h) = tiny_http::Header::from_bytes("Content-Type", content_type) {
                    response = response.with_header(h);
                }
                // A scraper that hung up is its own problem.
                let _ = request.respond(response);
            }
        })
        .map_err(|e| format!("--metrics {addr}: cannot start the server thread: {e}"))?;
    Ok(bound)
}
