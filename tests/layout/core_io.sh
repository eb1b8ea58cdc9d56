#!/bin/sh
# The controller core (src/core/) does no I/O of its own (doc/core.md): its
# clock, timers, workers and effects come through core/env.h, its
# persistence through core/store.h, and herdctld (src/ctld/) and `herd sim`
# supply both.  Checked two ways:
#   1. no file of src/core includes libuv, sockets, SQLite, PostgreSQL,
#      MUNGE, the network layer, or a daemon's or the simulator's headers;
#   2. no object built from src/core calls into them: its undefined symbols
#      (nm -u) name none of their functions, nor a file, process or socket
#      call of libc.
# Usage: tests/layout/core_io.sh BUILD_DIR
set -eu
build=${1:-build}
cd "$(dirname "$0")/../.."
bad=0

inc=$(grep -nE '#include *[<"](uv\.h|sqlite3\.h|libpq-fe\.h|munge\.h|sys/socket\.h|common/net\.h|ctld/|herd/|noded/|stepd/|restd/|cmd/)' \
	src/core/*.c src/core/*.h || true)
if [ -n "$inc" ]; then
	echo "src/core includes what the core must not use:"
	echo "$inc"
	bad=1
fi

objs=$(ls "$build"/obj/src/core/*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
	echo "no objects under $build/obj/src/core: build first" >&2
	exit 2
fi
calls=$(nm -u -A $objs | awk '{print $1, $NF}' |
	grep -E ' (uv_|sqlite3_|PQ|munge_|net_|step_|launch_|rpc_|reconf_|auth_jwt_|mail_spawn|(open|openat|fopen|fdopen|read|write|pread|pwrite|unlink|rename|mkdir|socket|connect|bind|listen|accept|send|sendto|recv|recvfrom|fork|vfork|execv|execve|execvp|system|popen|posix_spawn|dlopen)$)' || true)
if [ -n "$calls" ]; then
	echo "src/core objects call what the core must not use:"
	echo "$calls" | sed "s#^$build/obj/##"
	bad=1
fi
[ $bad = 0 ] && echo "core_io: src/core ($(echo $objs | wc -w) objects) includes and calls no I/O"
exit $bad
