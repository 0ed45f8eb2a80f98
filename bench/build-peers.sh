#!/usr/bin/env bash
# Builds the peers on the GPU host from their public sources in the ignored
# .peers/, for the card's compute capability ($ARCH, e.g. sm_90; default
# from nvidia-smi), all at once: BabelStream's main branch (CUDA, grid
# stride; the v5.0 tag when main fails) into /tmp/cuda-stream, mixbench-cuda
# into /tmp/mixbench-cuda, NVIDIA's nvbandwidth into /tmp/nvbandwidth (with
# Boost's program_options from the Debian packages in .peers/debs, unpacked
# under /tmp/boost) and bench/vkfloor/cudafloor.cu into /tmp/cudafloor.
# Compiler output goes to the log file $1; a failed build is said there.
# Run from the repo root.
log=${1:?usage: build-peers.sh LOG}
arch=${ARCH:-sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')}
stubs=$(dirname "$(command -v nvcc)")/../lib64/stubs
(cd .peers/babelstream-main && nvcc -O3 -std=c++17 -arch="$arch" -DCUDA -DGRID_STRIDE --extended-lambda -Isrc -Isrc/cuda \
	src/main.cpp src/cuda/CUDAStream.cu -lnvidia-ml -o /tmp/cuda-stream) >>"$log" 2>&1 ||
	(echo "babelstream main build failed: building the v5.0 tag" && cd .peers/babelstream &&
		nvcc -O3 -std=c++17 -arch="$arch" -DCUDA -Isrc -Isrc/cuda src/main.cpp src/cuda/CUDAStream.cu -o /tmp/cuda-stream) >>"$log" 2>&1 &
# mixbench's CMake writes version_info.h; this direct build writes it
# when the checkout lacks one.
[ -f .peers/mixbench/mixbench-cuda/version_info.h ] ||
	printf '#define VERSION_INFO "%s"\n' "$(git -C .peers/mixbench rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		>.peers/mixbench/mixbench-cuda/version_info.h
(cd .peers/mixbench/mixbench-cuda && nvcc -O3 -std=c++14 -arch="$arch" --cudart=static -I. \
	main-cuda.cpp mix_kernels_cuda.cu -o /tmp/mixbench-cuda) >>"$log" 2>&1 || echo "mixbench build failed" >>"$log" &
(
	mkdir -p /tmp/boost /tmp/nvb
	for d in .peers/debs/libboost*.deb; do dpkg -x "$d" /tmp/boost; done
	cd .peers/nvbandwidth || exit 1
	for f in testcase.cpp testcases_ce.cpp testcases_sm.cpp kernels.cu memcpy.cpp nvbandwidth.cpp \
		multinode_memcpy.cpp multinode_testcases.cpp output.cpp json_output.cpp json/jsoncpp.cpp; do
		nvcc -O3 -std=c++17 -arch="$arch" -DGIT_VERSION='"peers"' -I. -I/tmp/boost/usr/include \
			-c "$f" -o "/tmp/nvb/$(basename "$f").o" &
	done
	wait
	nvcc -arch="$arch" /tmp/nvb/*.o /tmp/boost/usr/lib/x86_64-linux-gnu/libboost_program_options.a \
		-lnvidia-ml -lcuda -L"$stubs" -o /tmp/nvbandwidth
) >>"$log" 2>&1 || echo "nvbandwidth build failed" >>"$log" &
nvcc -O3 -std=c++17 -arch="$arch" bench/vkfloor/cudafloor.cu -o /tmp/cudafloor >>"$log" 2>&1 || echo "cudafloor build failed" >>"$log" &
wait
