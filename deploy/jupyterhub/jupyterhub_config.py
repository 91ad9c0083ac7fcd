# JupyterHub for an HPML class: PAM login with local Unix users, each user's server run as that user.
#
# Started by deploy/jupyterhub/hubctl.py, which sets the HPML_HUB_* variables below; on a real server,
# set them in the systemd unit (docs/running-a-class.md). Everything lives under HPML_HUB_PREFIX:
#   venv/    the course environment every user runs (built from a Python that other users can execute)
#   proxy/   configurable-http-proxy from npm
#   state/   the hub's database, cookie secret, proxy token and log (root only)
import os

c = get_config()  # noqa: F821 (injected by traitlets' config loader)

prefix = os.environ.get("HPML_HUB_PREFIX", "/opt/hpml-hub")
state = os.path.join(prefix, "state")
users = {u for u in os.environ.get("HPML_HUB_USERS", "").split(",") if u}
admins = {u for u in os.environ.get("HPML_HUB_ADMINS", "").split(",") if u}

c.JupyterHub.bind_url = os.environ.get("HPML_HUB_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_bind_url = "http://127.0.0.1:" + os.environ.get("HPML_HUB_API_PORT", "8081")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state, "jupyterhub.pid")

# PAM: the users and passwords of this machine. JupyterHub 5+ lets nobody in unless allowed.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = users | admins
c.Authenticator.admin_users = admins

# each user's single-user server runs as that Unix user, from the shared course environment
c.JupyterHub.spawner_class = "localprocess"
# the real path: users must reach it even when the prefix itself is a folder only root can enter
c.Spawner.cmd = [os.path.realpath(os.path.join(prefix, "venv", "bin", "jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.start_timeout = 120  # a cold start on 2 cores imports JupyterLab and nbgrader's extensions
c.Spawner.http_timeout = 120
c.Spawner.environment = {"HPML_FAST": os.environ.get("HPML_FAST", "")}
if os.environ.get("HPML_EXCHANGE"):  # another exchange than the one in the environment's nbgrader_config.py
    c.Spawner.environment["HPML_EXCHANGE"] = os.environ["HPML_EXCHANGE"]

c.ConfigurableHTTPProxy.command = [
    os.path.realpath(os.path.join(prefix, "proxy", "node_modules", ".bin", "configurable-http-proxy"))
]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:" + os.environ.get("HPML_HUB_PROXY_API_PORT", "8002")
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "proxy.pid")

# started and stopped with the hub, as root: hands each finished submission in nbgrader's inbound to the
# instructor (mode 0700), where nbgrader leaves it readable and writable by every user (inbound_guard.py)
c.JupyterHub.services = [
    {
        "name": "inbound-guard",
        "command": [
            os.path.realpath(os.path.join(prefix, "venv", "bin", "python3")),
            os.path.join(os.path.dirname(os.path.abspath(__file__)), "inbound_guard.py"),
            os.environ.get("HPML_EXCHANGE", "/srv/nbgrader/exchange"),
        ],
    }
]

# jupyterhub-idle-culler (installed by hubctl.py): stops a server idle for HPML_HUB_CULL_IDLE_S seconds (default an
# hour; 0 never), and with it its kernels. Idle: no request through the proxy and no kernel activity reported.
# LocalProcessSpawner enforces no memory or CPU limit per user (mem_limit and cpu_limit only set environment
# variables); see docs/running-a-class.md
cull_idle_s = int(os.environ.get("HPML_HUB_CULL_IDLE_S", "3600"))
if cull_idle_s > 0:
    c.JupyterHub.load_roles = [
        {
            "name": "idle-culler",
            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
            "services": ["idle-culler"],
        }
    ]
    c.JupyterHub.services.append(
        {
            "name": "idle-culler",
            "command": [
                # the environment's python by its folder's real path (the binary itself links out of the venv)
                os.path.join(os.path.realpath(os.path.join(prefix, "venv")), "bin", "python3"),
                "-m",
                "jupyterhub_idle_culler",
                f"--timeout={cull_idle_s}",
                f"--cull-every={max(5, min(300, cull_idle_s // 4))}",
            ],
        }
    )
