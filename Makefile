# HPML course kit. Every target sets up .venv on first use (idempotent, fast once done).
#   make demo     set up, then grade the embedded sample class and print the grade table
#
# The tests, in three tiers (README.md, "Tests"):
#   make check      under a minute: lint (code and notebooks), the import graph, the release equals a fresh
#                   generate, notebook hygiene, nothing handed out, quiz digests, the pure unit tests
#   make test       the README's and CI's command (19 minutes from a clean clone on 2 cores; the limit is 20):
#                   everything that proves the product works (all unit tests; every teaching notebook run once;
#                   every lab graded once with its CI mutants; the adversarial class; JupyterHub, nbgrader's
#                   exchange, Slurm and Chromium on the real daemons; speed tests and widget cells under load,
#                   3 measurements each)
#   make test-full  on demand, hours: the same at full count (repeat grading 10 times, speed and widget
#                   cells 20 times, the adversarial class on Slurm too), then make bench-grading, make mutants,
#                   make stress-kernels
#   make test-gpu   on a machine with an NVIDIA GPU: the checks only a GPU can answer (tests/gpu: kernels against
#                   the simulator, ptxas against the driver, FP16 tensor cores, GradScaler, NCCL with two GPUs,
#                   the sandbox's GPU pass-through, lab04 and lab11 graded on the GPU); each skips without a GPU
#   pytest -m lab04 one lab's checks (every lab folder of solutions/ has its marker)
#
#   make lint     ruff check and ruff format --check (`.venv/bin/ruff format .` fixes the formatting)
#   make lab      set up, then start JupyterLab on the repository (the instructor's view: solutions/ included)
#   make student-release  write dist/hpml-student: labs, course, hpml_lab_utils and their set-up, no answers
#   make hub      a demo class on JupyterHub at 127.0.0.1:8000 (root; DEMO_USERS=yes creates the users); make hub-stop
#                 COURSES=courses.toml: several courses and their TAs on one hub (docs/running-a-class.md)
#   make formgrader  JupyterLab with nbgrader's Formgrader, for instructors
#   make release  regenerate labs/ from solutions/
#   make strip    remove outputs and execution counts from every notebook
#   make mutants  grade every plausible wrong answer of solutions/*/mutants.toml (LAB=lab04 for one lab; ~25 min)
#   make stress-kernels  run every lab and week notebook RUNS times (default 5) on a busy machine;
#                 report hung and unusually slow cells (each round runs every lab and week notebook under load)
#   make bench-grading  time class grading: ours (--jobs 1, 2) vs plain nbgrader (~10-15 min)

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.hpml-setup-done
CONSTRAINTS := requirements/constraints-cpu.txt
# Extra pip arguments for torch, e.g. TORCH_PIP_ARGS="--index-url <your CPU or CUDA wheel index>"
TORCH_PIP_ARGS ?=
# With an NVIDIA GPU: GPU_EXTRA=gpu-cu12 (or gpu-cu13, to match the driver) installs Numba's CUDA libraries;
# without it the ptx extra brings NVIDIA's compiler libraries, so weeks 5 and 6 make real PTX without a GPU
GPU_EXTRA ?=
INSTRUCTOR_PLUGINS := formgrader create-assignment course-list assignment-list
INSTRUCTOR_SERVER_EXTS := formgrader course_list assignment_list
# JupyterLab refuses to run as root (containers) unless told
LAB_ARGS ?= $(if $(filter 0,$(shell id -u)),--allow-root)
# The folder JupyterLab opens (the browser tests open a copy of the repository's labs)
LAB_DIR ?= .
PIP := $(BIN)/python -m pip --disable-pip-version-check -q
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: check test-full test-gpu setup sandbox-tools cpp-tools browser-tools hub-tools slurm-tools hub hub-stop demo test lint mutants lab formgrader release student-release strip clean-work bench-grading bench-grading-slurm stress-kernels

setup: $(STAMP)

$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "[setup] installing into $(VENV) (first time takes a few minutes)"
	@$(BIN)/python -c "import torch" 2>/dev/null || $(PIP) install -c $(CONSTRAINTS) $(TORCH_PIP_ARGS) torch
	$(PIP) install -c $(CONSTRAINTS) -e ".[dev,kernels,$(if $(GPU_EXTRA),$(GPU_EXTRA),ptx)]"
	$(BIN)/python -m ipykernel install --sys-prefix --name hpml --display-name "Python 3 (HPML)" >/dev/null
	@# headless `jupyter nbconvert --execute` gets the kernel client that cannot lose a reply after a widget cell
	@mkdir -p $(VENV)/etc/jupyter && printf '%s\n' '{"ExecutePreprocessor": {"kernel_manager_class": "autograder.isolation.reply_channel.PromptKernelManager"}}' \
	  > $(VENV)/etc/jupyter/jupyter_nbconvert_config.json
	@# Students see only nbgrader's Validate button; instructors grade with `python -m autograder`.
	@$(BIN)/jupyter labextension disable --level=sys_prefix $(addprefix @jupyter/nbgrader:,$(INSTRUCTOR_PLUGINS)) >/dev/null 2>&1
	@$(BIN)/jupyter server extension disable --sys-prefix $(addprefix nbgrader.server_extensions.,$(INSTRUCTOR_SERVER_EXTS)) >/dev/null 2>&1
	@touch $(STAMP)
	@echo "[setup] done: $$($(BIN)/python -c 'import torch, numba; print("torch", torch.__version__, "| numba", numba.__version__)')"

# The autograder isolates student kernels with bubblewrap when it is there (docs/grading.md, "What isolation is guaranteed").
# As root with apt, install it; otherwise say once how to get it (grading still works, with limits only).
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing bubblewrap (sandbox for grading)"; \
	    (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq bubblewrap >/dev/null 2>&1)) || \
	    echo "[setup] could not install bubblewrap: grading falls back to resource limits only"; \
	  else \
	    echo "[setup] bubblewrap not found (apt-get install bubblewrap): grading uses resource limits only"; \
	  fi; }

# lab11 compiles C++ (torch.utils.cpp_extension and g++ -shared, with OpenMP) against Python's headers. As root with
# apt, install g++ and the headers when they are missing; otherwise say how (lab11's C++ cells then fail saying so).
PY_HEADER = $(shell $(PYTHON) -c "import sysconfig, os; print(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))")
cpp-tools:
	@command -v g++ >/dev/null 2>&1 && test -f "$(PY_HEADER)" || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing g++ and Python's headers (lab11 builds C++ extensions)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ python3-dev >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ python3-dev >/dev/null 2>&1)) || \
	    echo "[setup] could not install g++ and python3-dev: lab11's C++ parts will fail"; \
	  else \
	    echo "[setup] g++ or Python.h not found (apt-get install g++ python3-dev): lab11's C++ parts need them"; \
	  fi; }

# The class JupyterHub (deploy/jupyterhub) needs npm for configurable-http-proxy. As root with apt, install it;
# otherwise say how (tests/deploy/test_hub.py then skips).
hub-tools:
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing nodejs and npm (configurable-http-proxy of the class JupyterHub)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null 2>&1)) || \
	    echo "[setup] could not install npm: the JupyterHub tests will skip"; \
	  else \
	    echo "[setup] npm not found (apt-get install nodejs npm): the JupyterHub tests skip"; \
	  fi; }

# The Slurm backend's tests (tests/autograder/test_slurm.py) start a one-node cluster of Debian's slurm-wlm and
# munge (deploy/slurm/cluster.py). As root with apt, install them; otherwise say how (those tests then skip).
slurm-tools:
	@command -v slurmctld >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing slurm-wlm and munge (a one-node cluster for the Slurm backend's tests)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1)) || \
	    echo "[setup] could not install slurm-wlm: the Slurm tests will skip"; \
	  else \
	    echo "[setup] slurm-wlm not found (apt-get install slurm-wlm munge): the Slurm tests skip"; \
	  fi; }

# A demo class on JupyterHub at http://127.0.0.1:8000 (root only): the course environment in /opt/hpml-hub,
# PAM log-in; DEMO_USERS=yes creates the local users instructor, student1..3 (passwords printed).
hub: hub-tools
	$(PYTHON) deploy/jupyterhub/hubctl.py install
	$(PYTHON) deploy/jupyterhub/hubctl.py users $(if $(filter yes,$(DEMO_USERS)),--create-demo-users)
	$(PYTHON) deploy/jupyterhub/hubctl.py start $(if $(COURSES),--courses $(COURSES))

hub-stop:
	$(PYTHON) deploy/jupyterhub/hubctl.py stop

# The browser tests (tests/notebooks/test_browser.py) drive JupyterLab with Debian's Chromium. As root with apt,
# install it; otherwise say how (the browser tests then skip).
browser-tools:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || [ -n "$$HPML_CHROMIUM" ] || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "[setup] installing chromium (browser tests of JupyterLab; a minute or two)"; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1)) || \
	    echo "[setup] could not install chromium: the browser tests will skip"; \
	  else \
	    echo "[setup] chromium not found (apt-get install chromium, or HPML_CHROMIUM=/path/to/chrome): browser tests skip"; \
	  fi; }

demo: setup sandbox-tools cpp-tools
	$(BIN)/python -m autograder demo

SYSTEM_TOOLS := sandbox-tools cpp-tools browser-tools hub-tools slurm-tools
NBVAL := --nbval-lax --nbval-current-env --nbval-cell-timeout=600

check: setup lint
	HPML_FAST=1 $(BIN)/python -m pytest -q -m "not slow" tests

# Two workers, each group of tests on one of them, the long poles first (tests/conftest.py): half of the suite
# waits on daemons, browsers and one-kernel notebooks, and the other worker fills that time
XDIST := -n 2 --no-loadscope-reorder

test: setup $(SYSTEM_TOOLS) lint
	HPML_FAST=1 $(BIN)/python -m pytest -q $(XDIST) --durations=30 tests course $(NBVAL)

# The heavy tier, its shortest parts first (pytest about 1 h, bench 10 min, mutants 75 min, stress 2 h): a run
# stopped part way has told the most it could
test-full: setup $(SYSTEM_TOOLS) lint
	HPML_FAST=1 $(BIN)/python -m pytest -q $(XDIST) --full --durations=30 tests course $(NBVAL)
	$(MAKE) bench-grading
	$(MAKE) mutants
	$(MAKE) stress-kernels

# The GPU checks, then the unit tests whose GPU branches only a GPU runs; -s prints each check's figures
GPU_TESTS := tests/gpu/test_gpu.py tests/gpu/test_isolation_on_gpu.py tests/hpml_lab_utils/test_device.py \
  tests/hpml_lab_utils/test_cuda_helpers.py tests/hpml_lab_utils/test_timing.py tests/hpml_lab_utils/test_roofline.py \
  tests/hpml_lab_utils/test_ptx.py tests/gpu/test_labs_graded_on_gpu.py
test-gpu: setup sandbox-tools cpp-tools
	HPML_FAST=1 $(BIN)/python -m pytest -q -rs -s $(GPU_TESTS)

# ruff: lint rules and formatting, as configured in pyproject.toml (`ruff format .` fixes the formatting)
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The mutation suite: each lab's mutants graded through the real autograder, then a kill table per lab.
mutants: setup sandbox-tools cpp-tools
	HPML_FAST=1 $(BIN)/python -m tests.mutants $(LAB)

# Every notebook headless, several at once beside CPU burners: hung cells (lost replies) and outliers.
RUNS ?= 5
stress-kernels: setup
	HPML_FAST=1 $(BIN)/python -m tests.stress_kernels --runs $(RUNS)

lab: setup
	@echo "[lab] the instructor's view: solutions/ holds every answer and hidden test; students use make student-release"
	$(BIN)/jupyter lab --notebook-dir=$(LAB_DIR) $(LAB_ARGS)

# Instructors: JupyterLab with nbgrader's Formgrader and Create Assignment (autograder/jupyter_instructor),
# on the same gradebook and grading folder as `python -m autograder` (HPML_GRADING_DIR).
formgrader: setup
	JUPYTER_CONFIG_PATH=$(abspath autograder/jupyter_instructor) $(BIN)/jupyter lab --notebook-dir=$(LAB_DIR) $(LAB_ARGS)

release: setup
	$(BIN)/python -m autograder generate

# The student distribution: labs/, course/, hpml_lab_utils/ and their set-up, without solutions, tests or
# autograder (autograder/classroom/student_release.py); publish dist/hpml-student as the students' repository.
student-release: setup
	$(BIN)/python -m autograder.classroom.student_release --out dist/hpml-student

bench-grading: setup sandbox-tools
	$(BIN)/python -m autograder.sample_class.bench_grading

# The same class through the Slurm backend on a one-node cluster (root), beside the local backend: the overhead.
bench-grading-slurm: setup sandbox-tools slurm-tools
	$(BIN)/python -m autograder.sample_class.bench_grading --slurm --jobs 2 --no-plain

strip: setup
	$(BIN)/jupyter nbconvert --clear-output --inplace $$(git ls-files '*.ipynb')

clean-work:
	rm -rf autograder/work
