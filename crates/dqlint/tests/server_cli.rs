//! `dqlint server` as editors start it: with the arguments LSP clients pass
//! (vscode-languageclient appends `--stdio` for `TransportKind.stdio`).

use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// Reads `stdout` into `out` until it holds `marker`.
fn read_until(stdout: &mut impl Read, out: &mut Vec<u8>, marker: &str) {
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(out).contains(marker) {
        let n = stdout.read(&mut buf).unwrap();
        assert!(
            n > 0,
            "the server closed stdout before {marker}: {}",
            String::from_utf8_lossy(out)
        );
        out.extend_from_slice(&buf[..n]);
    }
}

/// Starts the server with `args` and goes through initialize, shutdown and
/// exit as a client does (each request once the previous one is answered);
/// returns what it wrote and its exit status.
fn session(args: &[&str]) -> (String, std::process::ExitStatus) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("dqlint runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut out = Vec::new();
    let send = |stdin: &mut std::process::ChildStdin, body: &str| {
        stdin.write_all(&frame(body)).unwrap();
        stdin.flush().unwrap();
    };
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
    );
    read_until(&mut stdout, &mut out, r#""id":1"#);
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
    );
    send(
        &mut stdin,
        r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
    );
    read_until(&mut stdout, &mut out, r#""id":2"#);
    send(&mut stdin, r#"{"jsonrpc":"2.0","method":"exit"}"#);
    drop(stdin);
    stdout.read_to_end(&mut out).unwrap();
    let status = child.wait().unwrap();
    (String::from_utf8_lossy(&out).into_owned(), status)
}

#[test]
fn server_accepts_the_stdio_flag_clients_pass() {
    for args in [
        &["server"][..],
        &["server", "--stdio"],
        &["server", "--stdio", "--clientProcessId=4242"],
    ] {
        let (out, status) = session(args);
        assert!(status.success(), "{args:?}: {status}");
        assert!(
            out.contains(r#""capabilities""#) && out.contains(r#""result":null,"id":2"#),
            "{args:?}: no initialize/shutdown answer in {out}"
        );
    }
}

#[test]
fn server_rejects_other_transports_clearly() {
    let output = Command::new(env!("CARGO_BIN_EXE_dqlint"))
        .args(["server", "--socket=9000"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--socket"));
}
