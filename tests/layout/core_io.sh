#!/bin/sh
# The controller core (src/core/, and the accounting's core half: src/acct/'s
# associations, QOS, usage, roles and TRES) does no I/O of its own
# (doc/core.md): its
# clock, timers, workers and effects come through core/env.h, its
# persistence through core/store.h, and herdctld (src/ctld/) and `herd sim`
# supply both.  Checked two ways:
#   1. no file of it includes libuv, sockets, SQLite, PostgreSQL, MUNGE,
#      the network layer, or a daemon's or the simulator's headers;
#   2. no object built from it calls into them: their undefined symbols
#      (nm -u) name none of their functions, nor a file, process or socket
#      call of libc.
# Usage: tests/layout/core_io.sh BUILD_DIR
set -eu
build=${1:-build}
cd "$(dirname "$0")/../.."
bad=0

acct='assoc assoc_edit assoc_list assoc_load assoc_mgr assoc_qos usage roles tres wckey'
srcs="src/core/*.c src/core/*.h $(for f in $acct; do echo src/acct/$f.c; done) src/acct/assoc*.h src/acct/usage.h"
inc=$(grep -nE '#include *[<"](uv\.h|sqlite3\.h|libpq-fe\.h|munge\.h|sys/socket\.h|common/net\.h|ctld/|herd/|noded/|stepd/|restd/|cmd/)' \
	$srcs || true)
if [ -n "$inc" ]; then
	echo "the core includes what it must not use:"
	echo "$inc"
	bad=1
fi

objs=$(ls "$build"/obj/src/core/*.o 2>/dev/null || true)
[ -z "$objs" ] || objs="$objs $(for f in $acct; do echo "$build/obj/src/acct/$f.o"; done)"
if [ -z "$objs" ]; then
	echo "no objects under $build/obj/src/core: build first" >&2
	exit 2
fi
calls=$(nm -u -A $objs | awk '{print $1, $NF}' |
	grep -E ' (uv_|sqlite3_|PQ|munge_|net_|step_|launch_|rpc_|reconf_|auth_jwt_|mail_spawn|(open|openat|fopen|fdopen|read|write|pread|pwrite|unlink|rename|mkdir|socket|connect|bind|listen|accept|send|sendto|recv|recvfrom|fork|vfork|execv|execve|execvp|system|popen|posix_spawn|dlopen)$)' || true)
if [ -n "$calls" ]; then
	echo "the core's objects call what they must not use:"
	echo "$calls" | sed "s#^$build/obj/##"
	bad=1
fi
[ $bad = 0 ] && echo "core_io: src/core and src/acct's core half ($(echo $objs | wc -w) objects) include and call no I/O"
exit $bad
