//! A throw-away PostgreSQL cluster for the tests: one per test process, a fresh database per test.
//!
//! The cluster is the distribution's PostgreSQL (`initdb` on `PATH`, else the newest
//! `/usr/lib/postgresql/*/bin`), in a temporary directory, on a unix socket in that directory and
//! a free loopback port, with fsync and autovacuum off. `initdb` refuses to run as root, so as root
//! `initdb` and `postgres` run as the `postgres` user (`setpriv`, which execs in place, so the
//! process started is the server itself).
//!
//! `initdb` is the slow part (over a second), so it runs once per machine and PostgreSQL version
//! into a template directory beside the clusters, which each cluster then copies. Both live in
//! `/dev/shm` where it is a memory file system (a copy takes a tenth of the time it takes on a
//! busy disk, and nothing of a throw-away cluster needs to reach one), else in the temporary
//! directory.
//!
//! The cluster must stop when the test process ends, however it ends (a panic, a `kill -9`, a
//! time-out of the test runner), and a static is never dropped. So the server is started by a
//! small guard: a fixed `sh` script, in a process group of its own, whose standard input is a
//! pipe held by the test process. When the test process exits the pipe closes, the guard's `read`
//! returns, and it stops the server (a fast shutdown) and removes the directory.

use std::io::Read as _;
use std::net::TcpListener;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What installs PostgreSQL when it is missing.
const INSTALL: &str = "run `cargo xtask tools` (it runs `apt-get install -y postgresql`)";

/// The guard: `$1` is the cluster's directory, the rest the command that runs the server. It
/// waits for its standard input to close, then stops the server and removes the directory.
const GUARD: &str = r#"
dir=$1
shift
"$@" >"$dir/postgres.log" 2>&1 </dev/null &
pg=$!
trap '' INT TERM HUP
while read -r _; do :; done
kill -INT "$pg" 2>/dev/null
wait "$pg"
rm -rf "$dir"
"#;

/// The cluster of this test process.
pub struct Cluster {
    /// The temporary directory: the data directory, the socket, the server's log.
    dir: PathBuf,
    port: u16,
    /// The directory of `initdb`, `postgres`, `psql`, `pgbench`.
    bin: PathBuf,
    psql: PathBuf,
    /// Copying the template and starting the server took this long.
    started_in: Duration,
    /// `initdb` of the template, when this process made it.
    initdb_in: Option<Duration>,
    databases: AtomicU32,
    /// The guard, and the pipe whose closing stops it; held until the process exits.
    _guard: Mutex<(Child, ChildStdin)>,
}

/// The cluster, started on first use.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(Cluster::start)
}

/// A fresh, empty database on the cluster, as a connection URL (TCP on the loopback).
pub fn database() -> String {
    cluster().database()
}

impl Cluster {
    /// The loopback port the server listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The directory holding the server's unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// A program of the server's distribution (`pgbench`, `psql`), beside its `postgres`.
    pub fn program(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// How long copying the template data directory and starting the server took.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// How long `initdb` took, when this process had to make the template.
    pub fn initdb_in(&self) -> Option<Duration> {
        self.initdb_in
    }

    /// The URL of `database` on this cluster, as the `postgres` role (trust authentication).
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates a database with a name no other test of this process uses; returns its URL.
    pub fn database(&self) -> String {
        let n = self.databases.fetch_add(1, Ordering::SeqCst);
        let name = format!("verdict_test_{n}");
        self.psql("postgres", &format!("CREATE DATABASE {name}"));
        self.url(&name)
    }

    /// Runs one SQL command with `psql` on `database` and returns what it printed (unaligned,
    /// tuples only).
    pub fn psql(&self, database: &str, sql: &str) -> String {
        let out = Command::new(&self.psql)
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-U",
                "postgres",
            ])
            .arg("-h")
            .arg(&self.dir)
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-d", database, "-c", sql])
            .output()
            .unwrap_or_else(|e| panic!("failed to start {}: {e}", self.psql.display()));
        assert!(
            out.status.success(),
            "psql `{sql}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The transactions committed on the database `url` names, read once no connection to it
    /// is open: a server process hands its counts over when it exits (or after a second idle),
    /// so a count read while the database is in use can lag behind.
    pub fn commits(&self, url: &str) -> i64 {
        let name = url
            .rsplit('/')
            .next()
            .and_then(|tail| tail.split('?').next())
            .expect("a database name in the URL");
        let deadline = Instant::now() + Duration::from_secs(30);
        let open = format!("SELECT count(*) FROM pg_stat_activity WHERE datname = '{name}'");
        while self.psql("postgres", &open) != "0" {
            assert!(Instant::now() < deadline, "connections to {name} stay open");
            std::thread::sleep(Duration::from_millis(10));
        }
        // psql's own transactions are on the `postgres` database.
        let count = format!("SELECT xact_commit FROM pg_stat_database WHERE datname = '{name}'");
        self.psql("postgres", &count)
            .parse()
            .expect("a count of transactions")
    }

    fn start() -> Cluster {
        let bin = bin_dir();
        let as_postgres = running_as_root().then(postgres_user);
        let template = template(&bin, as_postgres);
        let begun = Instant::now();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = scratch().join(format!("verdict-pg-{}-{nanos}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        make_dir(&dir, as_postgres);
        copy_dir(&template.data, &dir.join("data"));
        let port = free_port();
        let mut guard = spawn_guard(&bin, &dir, port, as_postgres);
        wait_ready(&dir, &mut guard.0);
        Cluster {
            psql: bin.join("psql"),
            bin,
            started_in: begun.elapsed(),
            initdb_in: template.made_in,
            dir,
            port,
            databases: AtomicU32::new(0),
            _guard: Mutex::new(guard),
        }
    }
}

/// The directory of `initdb`, `postgres` and `psql`.
fn bin_dir() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("initdb"))
        .find(|initdb| initdb.is_file())
        .and_then(|initdb| std::fs::canonicalize(initdb).ok())
        .and_then(|initdb| initdb.parent().map(Path::to_path_buf));
    let installed = || {
        let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
            .into_iter()
            .flatten()
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let version = entry.file_name().to_str()?.parse().ok()?;
                Some((version, entry.path().join("bin")))
            })
            .filter(|(_, bin)| bin.join("initdb").is_file())
            .collect();
        dirs.sort();
        dirs.pop().map(|(_, bin)| bin)
    };
    let bin = on_path
        .filter(|bin| bin.join("postgres").is_file())
        .or_else(installed)
        .unwrap_or_else(|| panic!("PostgreSQL (initdb, postgres) is missing: {INSTALL}"));
    for program in ["postgres", "psql"] {
        assert!(
            bin.join(program).is_file(),
            "{program} is missing beside {}: {INSTALL}",
            bin.display()
        );
    }
    bin
}

fn running_as_root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// The `postgres` user's uid and gid, from `/etc/passwd`.
fn postgres_user() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.first() == Some(&"postgres") && fields.len() > 3)
                .then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))
                .flatten()
        })
        .unwrap_or_else(|| {
            panic!(
                "running as root, PostgreSQL needs the `postgres` user, which is missing: {INSTALL}"
            )
        })
}

/// `program` run as the `postgres` user when running as root, else as is.
fn command(program: &Path, as_postgres: Option<(u32, u32)>) -> Command {
    match as_postgres {
        Some((uid, gid)) => {
            let mut cmd = Command::new("setpriv");
            cmd.arg(format!("--reuid={uid}"))
                .arg(format!("--regid={gid}"))
                .args(["--init-groups", "--"])
                .arg(program);
            cmd
        }
        None => Command::new(program),
    }
}

fn make_dir(dir: &Path, owner: Option<(u32, u32)>) {
    std::fs::create_dir_all(dir)
        .unwrap_or_else(|e| panic!("failed to create {}: {e}", dir.display()));
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(dir, Some(uid), Some(gid))
            .unwrap_or_else(|e| panic!("failed to give {} to postgres: {e}", dir.display()));
    }
}

/// `cp -a`: a data directory keeps its owner and its 0700 mode.
fn copy_dir(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap_or_else(|e| panic!("failed to start cp: {e}"));
    assert!(status.success(), "failed to copy {}", from.display());
}

/// A template data directory, made by `initdb` once per PostgreSQL version and user.
struct Template {
    data: PathBuf,
    made_in: Option<Duration>,
}

fn template(bin: &Path, as_postgres: Option<(u32, u32)>) -> Template {
    let version = Command::new(bin.join("postgres"))
        .arg("--version")
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).into_owned())
        .unwrap_or_else(|e| panic!("failed to run postgres --version: {e}"));
    let version: String = version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let uid = std::fs::metadata("/proc/self").map_or(0, |m| m.uid());
    let root = scratch().join(format!("verdict-pg-template-{uid}-{version}"));
    let data = root.join("data");
    if data.join("PG_VERSION").is_file() {
        return Template {
            data,
            made_in: None,
        };
    }
    // Made under a name of its own, then renamed in one step: a process racing this one either
    // sees no template or a whole one.
    let begun = Instant::now();
    let partial = scratch().join(format!(
        "verdict-pg-template-{uid}-{version}.{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&partial);
    make_dir(&partial, as_postgres);
    let out = command(&bin.join("initdb"), as_postgres)
        .current_dir(&partial)
        .arg("-D")
        .arg(partial.join("data"))
        .args([
            "--auth=trust",
            "--username=postgres",
            "--encoding=UTF8",
            "--locale=C",
        ])
        .args(["--no-sync", "--no-instructions", "--wal-segsize=1"])
        .output()
        .unwrap_or_else(|e| panic!("failed to start initdb: {e}"));
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if std::fs::rename(&partial, &root).is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    Template {
        data,
        made_in: Some(begun.elapsed()),
    }
}

/// Where clusters and their template go: `/dev/shm` when this process can write there and it
/// has a gigabyte free, else the temporary directory.
fn scratch() -> PathBuf {
    static SCRATCH: OnceLock<PathBuf> = OnceLock::new();
    SCRATCH
        .get_or_init(|| {
            let shm = Path::new("/dev/shm");
            // A container's /dev/shm may hold 64 MB: too little for a few clusters at once.
            let roomy = rustix::fs::statvfs(shm)
                .is_ok_and(|fs| fs.f_bavail.saturating_mul(fs.f_frsize) >= 1 << 30);
            let probe = shm.join(format!("verdict-pg-probe-{}", std::process::id()));
            if roomy && std::fs::create_dir(&probe).is_ok() {
                let _ = std::fs::remove_dir(&probe);
                shm.to_path_buf()
            } else {
                std::env::temp_dir()
            }
        })
        .clone()
}

/// A loopback port free now (the server binds it a moment later).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap_or_else(|e| panic!("no free loopback port: {e}"))
}

fn spawn_guard(
    bin: &Path,
    dir: &Path,
    port: u16,
    as_postgres: Option<(u32, u32)>,
) -> (Child, ChildStdin) {
    let server = command(&bin.join("postgres"), as_postgres);
    let mut guard = Command::new("sh");
    guard
        .args(["-c", GUARD, "verdict-pg-guard"])
        .arg(dir)
        .arg(server.get_program())
        .args(server.get_args())
        .arg("-D")
        .arg(dir.join("data"))
        .arg("-k")
        .arg(dir)
        .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1"])
        .args(["-c", "fsync=off", "-c", "synchronous_commit=off"])
        .args(["-c", "full_page_writes=off", "-c", "autovacuum=off"])
        .args(["-c", "shared_buffers=16MB", "-c", "max_connections=300"])
        .args(["-c", "max_wal_size=1GB", "-c", "logging_collector=off"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Out of the test's process group: a signal to the group (Ctrl-C, a runner's time-out)
        // leaves the guard to clean up once the test process is gone.
        .process_group(0);
    let mut child = guard
        .spawn()
        .unwrap_or_else(|e| panic!("failed to start the PostgreSQL guard: {e}"));
    let stdin = child.stdin.take().expect("the guard's stdin is piped");
    (child, stdin)
}

/// Waits until the server's `postmaster.pid` says it accepts connections.
fn wait_ready(dir: &Path, guard: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let pid_file = dir.join("data/postmaster.pid");
    loop {
        let status = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if status
            .lines()
            .nth(7)
            .is_some_and(|line| line.trim() == "ready")
        {
            return;
        }
        let mut log = String::new();
        let _ = std::fs::File::open(dir.join("postgres.log"))
            .and_then(|mut f| f.read_to_string(&mut log));
        // The guard outlives a server that failed: its log says so.
        let failed = log.contains("FATAL:") || guard.try_wait().ok().flatten().is_some();
        if failed || Instant::now() > deadline {
            panic!("PostgreSQL did not start in {}: {log}", dir.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
