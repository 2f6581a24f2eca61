# accelbench entry points. `make run` and `make test` work on a fresh machine: they set up what is
# missing (Debian packages, a .venv with torch), configure, build and then run or test.
BUILD       ?= build
BUILD_TYPE  ?= Release
PYTHON      ?= .venv/bin/python
# Arguments for `make run`, e.g. make run ARGS="--models mlp --quick"
ARGS        ?=
# Point at another libtorch with TORCH_PREFIX=/path/to/libtorch (skips the .venv torch).
TORCH_PREFIX ?=

.PHONY: all setup configure build run test test-all clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	@$(MAKE) --no-print-directory setup
	@prefix="$(TORCH_PREFIX)"; \
	if [ -z "$$prefix" ]; then prefix=$$($(PYTHON) -c 'import torch; print(torch.utils.cmake_prefix_path)'); fi; \
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCMAKE_PREFIX_PATH="$$prefix"

configure: $(BUILD)/build.ninja

build: configure
	@cmake --build $(BUILD)

run: build
	./$(BUILD)/accelbench run $(ARGS)

# Fast tests (units + end-to-end through the binary); slow and GPU tests are behind labels.
test: build
	cd $(BUILD) && ctest --output-on-failure --timeout 600 -LE 'slow|gpu'

test-all: build
	cd $(BUILD) && ctest --output-on-failure --timeout 1800

clean:
	rm -rf $(BUILD)
