//! Integration tests: a failure, a crash, a time-out, a test that passes on its second try and
//! one that leaks a process.

#[test]
fn integration_ok() {
    assert_eq!(nxdemo::add(1, 1), 2);
}

#[test]
fn integration_fails() {
    assert!(nxdemo::add(1, 1) == 3, "integration failure {}", 42);
}

#[test]
fn aborts() {
    std::process::abort();
}

#[test]
fn slow() {
    std::thread::sleep(std::time::Duration::from_secs(5));
}

/// Fails on its first try and passes on the next: a counter file in the target directory.
#[test]
fn flaky() {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("flaky-counter");
    let tries: u32 = std::fs::read_to_string(&path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    std::fs::write(&path, (tries + 1).to_string()).expect("write the counter");
    assert!(tries % 2 == 1, "flaky on try {tries}");
}

/// Starts a process that keeps the test's output open after the test ends.
#[test]
fn leaky() {
    std::process::Command::new("sleep")
        .arg("1")
        .spawn()
        .expect("sleep starts");
}
