"""A real PostgreSQL server for the accounting tests: initdb in a temp
directory, started with pg_ctl on a free TCP port of 127.0.0.1, as the
`postgres` user (or herdu1) when the tests run as root -- PostgreSQL refuses
to run as root.  Connections over TCP need the password (scram-sha-256), so
AccountingStoragePass is exercised (a root-only file holding the password, as
the controller requires); psql over the private socket is trusted.
Stopped by the PID in postmaster.pid, never by name."""
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time

PG_BIN = "/usr/lib/postgresql/15/bin"
PG_USER = "herd"          # the database superuser initdb makes
PG_PASS = "herd's-pass"   # a quote in it: conninfo quoting is exercised


def available():
    return os.path.exists(os.path.join(PG_BIN, "initdb"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _os_user():
    if os.getuid() != 0:
        return None
    for name in ("postgres", "herdu1"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise RuntimeError("no non-root user to run PostgreSQL as")


class PgServer:
    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="herd-pg-", dir="/tmp")
        os.chmod(self.root, 0o755)
        self.data = os.path.join(self.root, "data")
        self.sock = os.path.join(self.root, "sock")
        os.mkdir(self.sock)
        self.log = os.path.join(self.root, "pg.log")
        self.port = free_port()
        self.user = _os_user()
        if self.user:
            for p in (self.root, self.sock):
                os.chown(p, self.user.pw_uid, self.user.pw_gid)
        pwfile = os.path.join(self.root, "pw")
        with open(pwfile, "w") as f:
            f.write(PG_PASS + "\n")
        if self.user:
            os.chown(pwfile, self.user.pw_uid, self.user.pw_gid)
        self._run([os.path.join(PG_BIN, "initdb"), "-D", self.data, "-U", PG_USER,
                   "--pwfile", pwfile, "--auth-local=trust", "--auth-host=scram-sha-256",
                   "-E", "UTF8", "--no-sync"], timeout=120)
        os.unlink(pwfile)
        # AccountingStoragePass names a file only the controller's user may
        # read (mode 0600, ours): never the password itself.
        fd, self.passfile = tempfile.mkstemp(prefix="herd-pgpass-", dir="/tmp")
        with os.fdopen(fd, "w") as f:
            f.write(PG_PASS + "\n")
        self.start()

    def _run(self, argv, timeout=60, check=True, input=None):
        if self.user:
            argv = ["runuser", "-u", self.user.pw_name, "--"] + argv
        p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, input=input,
                           cwd=self.root)
        if check and p.returncode != 0:
            raise RuntimeError(f"{argv} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
        return p

    def start(self):
        opts = (f"-p {self.port} -k {self.sock} -c listen_addresses=127.0.0.1"
                " -c fsync=off -c max_connections=200")
        self._run([os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l", self.log, "-w",
                   "-t", "60", "-o", opts, "start"], timeout=90)

    def pid(self):
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                return int(f.readline())
        except (OSError, ValueError):
            return None

    def stop(self, timeout=30):
        """Fast shutdown (SIGINT to the postmaster): clients are cut off."""
        pid = self.pid()
        if not pid:
            return
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            return
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)

    def destroy(self):
        self.stop()
        try:
            os.unlink(self.passfile)
        except OSError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)

    def psql(self, sql, db="postgres"):
        """Rows of sql as lists of strings (psql -At, fields split on |)."""
        p = self._run([os.path.join(PG_BIN, "psql"), "-h", self.sock, "-p", str(self.port),
                       "-U", PG_USER, "-d", db, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
        return [line.split("|") for line in p.stdout.splitlines() if line]

    def create_db(self, name):
        self.psql(f'CREATE DATABASE "{name}"')
        return name

    def conf(self, db):
        """herd.conf keys that send a cluster's records to database db."""
        return {"AccountingStorageType": "accounting_storage/pgsql",
                "AccountingStorageHost": "127.0.0.1",
                "AccountingStoragePort": str(self.port),
                "AccountingStorageUser": PG_USER,
                "AccountingStoragePass": self.passfile,
                "AccountingStorageLoc": db}


_session = None


def session_server():
    """One server for the whole pytest session (HERD_TEST_ACCT=pgsql), gone at exit."""
    global _session
    if _session is None:
        import atexit
        _session = PgServer()
        atexit.register(_session.destroy)
    return _session


def set_conf_keys(c, keys):
    """Stop the cluster's controller, put keys into herd.conf, start it again."""
    c.wait_until("the controller's pid", lambda: len(c.daemon_pids("herdctld")) == 1)
    os.kill(c.ctld_pid(), signal.SIGTERM)
    c.wait_until("the controller to stop", lambda: not c.daemon_pids("herdctld"))
    with open(c.conf) as f:
        lines = [l for l in f.read().splitlines() if l.split("=", 1)[0] not in keys]
    lines += [f"{k}={v}" for k, v in keys.items() if v is not None]
    with open(c.conf, "w") as f:
        f.write("\n".join(lines) + "\n")
    c.restart_ctld()
    c.wait_until("the controller", c.ping_ok, timeout=30)
    c.kv.update({k: v for k, v in keys.items() if v is not None})
    for k, v in keys.items():
        if v is None:
            c.kv.pop(k, None)
    c.wait_nodes_idle()   # registered again with the new controller


_ndb = 0


def use_pgsql(c, server, db=None):
    """Send cluster c's accounting records to a fresh database of server (or db)."""
    global _ndb
    if db is None:
        _ndb += 1
        db = server.create_db(f"herd_{os.getpid()}_{_ndb}")
    set_conf_keys(c, server.conf(db))
    c.pg_server, c.pg_db = server, db
    return db
