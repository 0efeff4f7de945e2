# Runs one pipeline.sql that `pipec build --target flink` generated, as written, on PyFlink's local
# mini-cluster (the `flink` venv), for nexmark.bench.ts. argv: script, spec dir (for
# ${PIPEC_SPEC_DIR}), parallelism. The script's SETs become configuration, its CREATEs run one by
# one, its EXECUTE STATEMENT SET is the job (waited for: the sources are bounded files).
# stdout, last line: {"ok": true, "cpu_s": ..., "wall_s": ...} where cpu_s is user + system CPU
# of this whole process tree (Python, the JVM it starts, anything else below it), or
# {"ok": false, "message": ...}.
import json
import os
import re
import resource
import sys
import time
import traceback

STARTED = time.time()
# Only what a loaded shared machine needs (the mini-cluster's RPC and heartbeats must not time
# out); everything else is Flink's default or the script's own SET.
DEFAULTS = {"pekko.ask.timeout": "10 min", "heartbeat.timeout": "600000"}


def statements(text):
    """The script's statements; an EXECUTE STATEMENT SET block (inner ';') is one."""
    out, cur, block = [], [], False
    for line in text.splitlines():
        if not cur and (not line.strip() or line.lstrip().startswith("--")):
            continue
        cur.append(line)
        if not block and line.strip().upper().startswith("EXECUTE STATEMENT SET"):
            block = True
        done = line.strip().upper() == "END;" if block else line.rstrip().endswith(";")
        if done:
            out.append("\n".join(cur).rstrip().rstrip(";"))
            cur, block = [], False
    return out


def tree_cpu_seconds():
    """CPU of this process, its reaped children, and every live descendant (the JVM)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    parent = {}
    stats = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)] = int(fields[1])
        # utime, stime, cutime, cstime (fields 14-17 of stat; after the name: index 11-14)
        stats[int(pid)] = sum(int(x) for x in fields[11:15]) / tick
    mine = {os.getpid()}
    grew = True
    while grew:
        grew = False
        for pid, pp in parent.items():
            if pp in mine and pid not in mine:
                mine.add(pid)
                grew = True
    return total + sum(stats[p] for p in mine if p != os.getpid())


def main():
    script, spec_dir, parallelism = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(script, encoding="utf-8") as f:
        text = f.read().replace("${PIPEC_SPEC_DIR}", spec_dir)
    from pyflink.table import EnvironmentSettings, TableEnvironment

    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = env.get_config()
    for key, value in DEFAULTS.items():
        conf.set(key, value)
    conf.set("parallelism.default", parallelism)
    conf.set("table.exec.resource.default-parallelism", parallelism)
    result = None
    for stmt in statements(text):
        m = re.fullmatch(r"SET\s+'([^']+)'\s*=\s*'([^']*)'", stmt.strip(), re.S)
        try:
            if m:
                conf.set(m.group(1), m.group(2))
            else:
                result = env.execute_sql(stmt)
        except Exception as err:  # Py4JJavaError: keep Flink's own message
            return {"ok": False, "statement": stmt[:2000], "message": str(err).strip()[:6000]}
    try:
        if result is not None:
            result.wait()
    except Exception as err:
        return {"ok": False, "message": str(err).strip()[:8000]}
    return {"ok": True, "cpu_s": round(tree_cpu_seconds(), 2), "wall_s": round(time.time() - STARTED, 2)}


if __name__ == "__main__":
    try:
        res = main()
    except Exception:
        res = {"ok": False, "message": traceback.format_exc()[-8000:]}
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
