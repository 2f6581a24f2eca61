# accelbench entry points. `make run` and `make test` work on a fresh machine: they set up what is
# missing (Debian packages, a .venv with torch), configure, build and then run or test.
BUILD       ?= build
BUILD_TYPE  ?= Release
PYTHON      ?= .venv/bin/python
# Arguments for `make run`, e.g. make run ARGS="--models mlp --quick"
ARGS        ?=
# Point at another libtorch with TORCH_PREFIX=/path/to/libtorch (skips the .venv torch).
TORCH_PREFIX ?=

.PHONY: all setup configure build run test test-timing test-all test-pip clean fuzz test-asan test-replay test-sanitizers install

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	@$(MAKE) --no-print-directory setup
	@prefix="$(TORCH_PREFIX)"; \
	if [ -z "$$prefix" ]; then prefix=$$($(PYTHON) -c 'import torch; print(torch.utils.cmake_prefix_path)'); fi; \
	launcher=""; if command -v ccache >/dev/null 2>&1; then launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; fi; \
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_PREFIX_PATH="$$prefix" $$launcher

configure: $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD)

run: build
	./$(BUILD)/accelbench run $(ARGS)

# Installs the binary, its man page and bash/zsh/fish completions under PREFIX (bin/, share/man,
# share/bash-completion, share/zsh, share/fish), e.g. make install PREFIX=$HOME/.local
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix "$(PREFIX)"

# Fast tests (units + end-to-end through the binary); slow and GPU tests are behind labels. Then the
# sanitizer step (test-sanitizers): the torch-free units and the fuzzers' saved inputs under ASan + UBSan.
test: build
	@bash scripts/setup.sh --tests
	cd $(BUILD) && ctest --output-on-failure --timeout 600 -LE 'slow|gpu|timing'
	@$(MAKE) --no-print-directory test-sanitizers

# pip install --no-build-isolation . into a scratch virtual environment (PIP_TEST_ENV: made when
# absent, with .venv's torch installed by pip; kept, with its build folder beside it, for the next
# run), a quick run of both loops from the installed command in another folder, and the uninstall
# leaving the environment's files as they were (tests/package/pip_install_test.sh; the test
# PipInstall, label slow). PIP_TEST_ENV=/path/to/env tests another environment that has torch and
# scikit-build-core.
PIP_TEST_ENV ?= $(BUILD)/pip-test/env
test-pip: setup
	bash tests/package/pip_install_test.sh . "$(PIP_TEST_ENV)"

# Wall-clock claims (label `timing`): meaningful on a quiet machine only, so CI does not gate on them.
test-timing: build
	cd $(BUILD) && ctest --output-on-failure --timeout 600 -L timing

test-all: build
	@bash scripts/setup.sh --tests
	cd $(BUILD) && ctest --output-on-failure --timeout 1800

# Coverage-guided fuzzing (clang's libFuzzer, ASan + UBSan) of the torch-free readers and parsers:
# fuzz/ is its own CMake project (no torch), built into build-fuzz/. Each target runs FUZZ_RUNS
# executions from its seed corpus (fuzz/corpus/<target>/, left as it is; new inputs go to
# build-fuzz/corpus/<target>/, crashes to build-fuzz/artifacts/). Needs clang and libclang-rt-dev
# (apt-get install clang libclang-rt-14-dev). E.g. make fuzz FUZZ_RUNS=100000 FUZZ_TARGETS="idx parsers"
FUZZ_RUNS    ?= 1000000
FUZZ_TARGETS ?= idx cifar text results_json parsers history
FUZZ_CXX     ?= clang++
fuzz:
	@cmake -S fuzz -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=$(FUZZ_CXX) >/dev/null
	@cmake --build build-fuzz
	@mkdir -p build-fuzz/artifacts
	@set -e; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build-fuzz/corpus/$$t; \
	  echo "fuzz_$$t: $(FUZZ_RUNS) runs (log: build-fuzz/fuzz_$$t.log)"; \
	  if ! ./build-fuzz/fuzz_$$t -runs=$(FUZZ_RUNS) -print_final_stats=1 -timeout=20 \
	       -artifact_prefix=build-fuzz/artifacts/$$t- build-fuzz/corpus/$$t fuzz/corpus/$$t \
	       > build-fuzz/fuzz_$$t.log 2>&1; then \
	    tail -40 build-fuzz/fuzz_$$t.log; echo "fuzz_$$t: FINDING (input in build-fuzz/artifacts/)"; exit 1; fi; \
	  grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units" build-fuzz/fuzz_$$t.log | tail -2; \
	done

# The unit tests under AddressSanitizer + UndefinedBehaviorSanitizer, in build-asan/ (g++ by default:
# ASAN_CXX). By default only the torch-free unit tests (ASAN_TESTS): building the torch targets under
# ASan takes very long on a small machine. Add unit_torch_tests to ASAN_TESTS to include them.
ASAN_TESTS ?= unit_core_tests unit_telemetry_tests unit_results_tests unit_profile_tests
# Wall-clock claims (Timing.*) and Slow/* stay out, as in `make test`: a sanitized build is slow.
ASAN_TEST_FILTER = -Timing.*:Slow/*
ASAN_CXX   ?= g++
FUZZ_REPLAYS = replay_idx replay_cifar replay_text replay_results_json replay_parsers replay_history
build-asan/build.ninja:
	@if [ -z "$(TORCH_PREFIX)" ] && [ ! -x "$(PYTHON)" ]; then $(MAKE) --no-print-directory setup; fi
	@prefix="$(TORCH_PREFIX)"; \
	if [ -z "$$prefix" ]; then prefix=$$($(PYTHON) -c 'import torch; print(torch.utils.cmake_prefix_path)'); fi; \
	launcher=""; if command -v ccache >/dev/null 2>&1; then launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; fi; \
	cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_PREFIX_PATH="$$prefix" -DACCELBENCH_PCH=OFF \
	  -DCMAKE_CXX_COMPILER=$(ASAN_CXX) $$launcher -DACCELBENCH_FUZZ_REPLAY=ON \
	  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null

test-asan: build-asan/build.ninja
	@cmake --build build-asan --target $(ASAN_TESTS)
	@set -e; for t in $(ASAN_TESTS); do \
	  echo "== $$t (ASan + UBSan)"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    ./build-asan/tests/$$t --gtest_brief=1 --gtest_filter='$(ASAN_TEST_FILTER)'; \
	done

# The fuzz targets' saved inputs (fuzz/corpus/, tests/data/fuzz/) replayed once each under ASan +
# UBSan, without libFuzzer (fuzz/replay_main.cpp), linked with build-asan/'s torch-free library.
test-replay: build-asan/build.ninja
	@grep -q '^ACCELBENCH_FUZZ_REPLAY:BOOL=ON' build-asan/CMakeCache.txt || cmake -B build-asan -DACCELBENCH_FUZZ_REPLAY=ON >/dev/null
	@cmake --build build-asan --target $(FUZZ_REPLAYS)
	cd build-asan && ctest --output-on-failure -L fuzz-replay

# The sanitizer step of `make test`: test-asan, then test-replay.
test-sanitizers: test-asan test-replay

clean:
	rm -rf $(BUILD)
