# Drives the reference `codex app-server` (0.169) with the scripted model (go build -o /tmp/mockmodel
# ./internal/testkit/cmd/mockmodel) and prints, per case, the approval requests it sent and the
# tool output the model received. Used to check the approval matrix in decision_test.go:
#   python3 internal/safety/testdata/refcodex_appserver.py onreq_rm untrusted_ls p_never_ro ...
import json, os, subprocess, sys, tempfile, time, select

BIN = "/root/.cache/gocodex-reference/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"

def script(cmd_args):
    calls = cmd_args if isinstance(cmd_args, list) else [cmd_args]
    created = {"type": "response.created", "data": {"type": "response.created", "response": {"id": "resp_mock"}}}
    def completed():
        return {"type": "response.completed", "data": {"type": "response.completed", "response": {"id": "resp_mock", "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}}}}
    resps = []
    for i, cmd_args in enumerate(calls):
        resps.append({"events": [created, mkcall(cmd_args, i), completed()]})
    resps.append({"events": [created, msg, completed()]})
    return {"responses": resps}

def mkcall(cmd_args, i):
    if "patch" in cmd_args:
        fc = {"type": "response.output_item.done", "data": {"type": "response.output_item.done", "output_index": 0, "item": {"type": "custom_tool_call", "id": "ctc_1", "call_id": f"call_{i}", "name": "apply_patch", "input": cmd_args["patch"], "status": "completed"}}}
    else:
        fc = {"type": "response.output_item.done", "data": {"type": "response.output_item.done", "output_index": 0, "item": {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "exec_command", "arguments": json.dumps(cmd_args), "status": "completed"}}}
    global msg
    msg = {"type": "response.output_item.done", "data": {"type": "response.output_item.done", "output_index": 0, "item": {"type": "message", "id": "m1", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}}}
    return fc

def run(name, approval, sandbox, cmd_args, decision="decline", rules=None):
    home = tempfile.mkdtemp(prefix="ch-", dir="/var/tmp")
    work = tempfile.mkdtemp(prefix="wk-", dir="/var/tmp"); subprocess.run(["git", "init", "-q", work])
    sp = os.path.join(home, "script.json")
    json.dump(script(cmd_args), open(sp, "w"))
    mm = subprocess.Popen(["/tmp/mockmodel", "-script", sp, "-log"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = mm.stdout.readline().strip()
    cfg = f'''model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[features]
plugins = false
'''
    open(os.path.join(home, "config.toml"), "w").write(cfg)
    if rules:
        os.makedirs(os.path.join(home, "rules"), exist_ok=True)
        open(os.path.join(home, "rules", "t.rules"), "w").write(rules + "\n")
    env = dict(os.environ, CODEX_HOME=home, MOCK_API_KEY="x")
    p = subprocess.Popen(["timeout", "60", BIN, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, cwd=work)
    def send(o):
        p.stdin.write(json.dumps(o) + "\n"); p.stdin.flush()
    import threading, queue
    q = queue.Queue()
    def reader():
        for line in p.stdout:
            try: q.put(json.loads(line))
            except Exception: pass
    threading.Thread(target=reader, daemon=True).start()
    def recv(timeout=30):
        try: return q.get(timeout=timeout)
        except queue.Empty: return None
    send({"id": 1, "method": "initialize", "params": {"clientInfo": {"name": "t", "version": "1"}, "capabilities": {"experimentalApi": True}}})
    while True:
        m = recv()
        if m is None or m.get("id") == 1: break
    send({"method": "initialized"})
    send({"id": 2, "method": "thread/start", "params": {"cwd": work, "approvalPolicy": approval, "sandbox": sandbox}})
    tid = None
    while True:
        m = recv()
        if m is None: break
        if m.get("id") == 2:
            if "error" in m: print(name, "thread/start error", m); return
            tid = m["result"]["thread"]["id"]; break
    send({"id": 3, "method": "turn/start", "params": {"threadId": tid, "input": [{"type": "text", "text": "go"}]}})
    approvals = []
    deadline = time.time() + 40
    while time.time() < deadline:
        m = recv(5)
        if m is None: continue
        if "method" in m and "id" in m:  # server request
            approvals.append({"method": m["method"], "reason": m["params"].get("reason"), "amend": m["params"].get("proposedExecpolicyAmendment"), "cmd": m["params"].get("command")})
            dec = decision
            if dec == "amend":
                dec = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": m["params"].get("proposedExecpolicyAmendment")}}
            send({"id": m["id"], "result": {"decision": dec}})
        elif m.get("method") == "turn/completed":
            break
        elif m.get("method") in ("item/completed", "error") and VERBOSE:
            it = m["params"].get("item", m["params"])
            print("   ", m.get("method"), json.dumps(it)[:400])
    time.sleep(0.5); p.kill()
    time.sleep(1.0); mm.terminate()
    _, err = mm.communicate(timeout=5)
    outs = []
    reqs = []
    for l in err.splitlines():
        try: reqs.append(json.loads(l))
        except Exception: pass
    for r in reqs:
        body = r.get("body")
        if isinstance(body, str):
            try: body = json.loads(body)
            except Exception: continue
        if not isinstance(body, dict): continue
        for it in body.get("input", []):
            if it.get("type") in ("function_call_output", "custom_tool_call_output"):
                outs.append(it.get("output"))
    if VERBOSE:
        for r in reqs:
            b = r.get("body")
            if isinstance(b, dict):
                print("   req input types:", [ (i.get("type"), str(i.get("output"))[:200]) for i in b.get("input", []) if i.get("type") not in ("message",)])
    print(f"== {name}: approvals={approvals}\n   outputs={[o[:300] if isinstance(o, str) else o for o in outs]!r}")
    rp = os.path.join(home, "rules", "default.rules")
    if os.path.exists(rp): print("   default.rules:", repr(open(rp).read()))

VERBOSE = False
cases = sys.argv[1:]
IN = "*** Begin Patch\n*** Add File: inside.txt\n+hi\n*** End Patch"
OUT = "*** Begin Patch\n*** Add File: /var/tmp/zz-outside-probe.txt\n+hi\n*** End Patch"
GIT = "*** Begin Patch\n*** Add File: .git/zz.txt\n+hi\n*** End Patch"
IN2 = "*** Begin Patch\n*** Update File: inside.txt\n@@\n-hi\n+ho\n*** End Patch"
GA = {"granular": {"sandbox_approval": True, "rules": True, "skill_approval": False, "request_permissions": False, "mcp_elicitations": False}}
GD = {"granular": {"sandbox_approval": False, "rules": False, "skill_approval": False, "request_permissions": False, "mcp_elicitations": False}}
ALL = {
 "untrusted_cat": ("untrusted", "workspace-write", {"cmd": "cat x"}),
 "untrusted_ls_nologin": ("untrusted", "workspace-write", {"cmd": "ls", "login": False}),
 "untrusted_pwd_ro": ("untrusted", "read-only", {"cmd": "pwd"}),
 "untrusted_ls_full": ("untrusted", "danger-full-access", {"cmd": "ls"}),
 "onreq_ls": ("on-request", "workspace-write", {"cmd": "ls"}),
 "never_rm": ("never", "workspace-write", {"cmd": "rm -rf zzz"}),
 "never_full_rm": ("never", "danger-full-access", {"cmd": "rm -rf zzz"}),
 "never_other": ("never", "workspace-write", {"cmd": "cargo build"}),
 "ga_esc": (GA, "workspace-write", {"cmd": "echo hi", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "gd_rm": (GD, "workspace-write", {"cmd": "rm -rf zzz"}),
 "ga_rm": (GA, "workspace-write", {"cmd": "rm -rf zzz"}),
 "ga_other_esc_full": (GA, "danger-full-access", {"cmd": "cargo build", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "gd_esc": (GD, "workspace-write", {"cmd": "echo hi", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "untrusted_esc": ("untrusted", "workspace-write", {"cmd": "echo hi", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "untrusted_rm": ("untrusted", "workspace-write", {"cmd": "rm -rf zzz"}),
 "untrusted_allowrule": ("untrusted", "workspace-write", {"cmd": "cargo build && ls"}, "decline", 'prefix_rule(pattern=["cargo"])'),
 "untrusted_allowrule_only": ("untrusted", "workspace-write", {"cmd": "cargo build"}, "decline", 'prefix_rule(pattern=["cargo"])'),
 "onreq_script_rule": ("on-request", "workspace-write", {"cmd": "ls && echo hi"}, "decline", 'prefix_rule(pattern=["echo"], decision="prompt")'),
 "p_onreq_in": ("on-request", "workspace-write", {"patch": IN}),
 "p_onreq_out": ("on-request", "workspace-write", {"patch": OUT}),
 "p_never_out": ("never", "workspace-write", {"patch": OUT}),
 "p_never_ro": ("never", "read-only", {"patch": IN}),
 "p_onreq_ro": ("on-request", "read-only", {"patch": IN}),
 "p_untrusted_in": ("untrusted", "workspace-write", {"patch": IN}),
 "p_gd_out": (GD, "workspace-write", {"patch": OUT}),
 "p_never_git": ("never", "workspace-write", {"patch": GIT}),
 "cache_same": ("untrusted", "workspace-write", [{"cmd": "echo one"}, {"cmd": "echo one"}, {"cmd": "echo one", "tty": True}, {"cmd": "echo one", "workdir": "/tmp"}], "acceptForSession"),
 "amend": ("untrusted", "workspace-write", [{"cmd": "echo one two"}, {"cmd": "echo one two three"}], "amend"),
 "retry": ("untrusted", "workspace-write", {"cmd": "touch /var/tmp/zz-probe-retry"}, "accept"),
 "p_cache": ("untrusted", "workspace-write", [{"patch": IN}, {"patch": IN2}, {"patch": IN}], "acceptForSession"),
 "heredoc_rule": ("on-request", "workspace-write", {"cmd": "python3 <<'EOF'\nprint(1)\nEOF"}, "decline", 'prefix_rule(pattern=["python3"], decision="prompt")'),
 "redirect_forbidden": ("on-request", "workspace-write", {"cmd": "docker ps > out.txt"}, "decline", 'prefix_rule(pattern=["docker"], decision="forbidden")'),
 "nested_rm": ("on-request", "workspace-write", {"cmd": "for x in a; do rm -rf $x; done"}),
 "never_sudo_rm": ("never", "workspace-write", {"cmd": "sudo rm -f x"}),
 "abs_git": ("on-request", "workspace-write", {"cmd": "/usr/bin/git status"}, "decline", 'prefix_rule(pattern=["git"], decision="forbidden")'),
 "heredoc_rule_nl": ("on-request", "workspace-write", {"cmd": "python3 <<'EOF'\nprint(1)\nEOF\n"}, "decline", 'prefix_rule(pattern=["python3"], decision="prompt")'),
 "gd_other": (GD, "workspace-write", {"cmd": "cargo build"}),
 "gd_promptrule": (GD, "workspace-write", {"cmd": "echo hi"}, "decline", 'prefix_rule(pattern=["echo"], decision="prompt")'),

 "onreq_rm": ("on-request", "workspace-write", {"cmd": "rm -rf zzz"}),
 "onreq_full_rm": ("on-request", "danger-full-access", {"cmd": "rm -rf zzz"}),
 "onreq_esc": ("on-request", "workspace-write", {"cmd": "echo hi", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "onreq_esc_ls": ("on-request", "workspace-write", {"cmd": "ls", "sandbox_permissions": "require_escalated", "justification": "need"}),
 "onreq_other": ("on-request", "workspace-write", {"cmd": "cargo build"}),
 "onfail_other": ("on-failure", "workspace-write", {"cmd": "touch /etc/zzz"}),
 "untrusted_git": ("untrusted", "workspace-write", {"cmd": "git status"}),
 "untrusted_other": ("untrusted", "workspace-write", {"cmd": "cargo build"}),
 "untrusted_ls": ("untrusted", "workspace-write", {"cmd": "ls"}),
 "onreq_promptrule": ("on-request", "workspace-write", {"cmd": "echo hi"}, "decline", 'prefix_rule(pattern=["echo"], decision="prompt", justification="why not")'),
}
for c in cases:
    args = ALL[c]
    run(c, *args)
