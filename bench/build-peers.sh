#!/usr/bin/env bash
# Builds the peers on the GPU host from their public sources in the ignored
# .peers/: BabelStream's main branch (CUDA, grid stride, as its CMake
# default; the v5.0 tag when main fails) into /tmp/cuda-stream, and
# mixbench-cuda into /tmp/mixbench-cuda, the two at once. Compiler output
# goes to the log file $1; a failed build is said there. Run from the repo
# root.
log=${1:?usage: build-peers.sh LOG}
(cd .peers/babelstream-main && nvcc -O3 -std=c++17 -arch=sm_90 -DCUDA -DGRID_STRIDE --extended-lambda -Isrc -Isrc/cuda \
	src/main.cpp src/cuda/CUDAStream.cu -lnvidia-ml -o /tmp/cuda-stream) >>"$log" 2>&1 ||
	(echo "babelstream main build failed: building the v5.0 tag" && cd .peers/babelstream &&
		nvcc -O3 -std=c++17 -arch=sm_90 -DCUDA -Isrc -Isrc/cuda src/main.cpp src/cuda/CUDAStream.cu -o /tmp/cuda-stream) >>"$log" 2>&1 &
# mixbench's CMake writes version_info.h; this direct build writes it
# when the checkout lacks one.
[ -f .peers/mixbench/mixbench-cuda/version_info.h ] ||
	printf '#define VERSION_INFO "%s"\n' "$(git -C .peers/mixbench rev-parse --short HEAD 2>/dev/null || echo unknown)" \
		>.peers/mixbench/mixbench-cuda/version_info.h
(cd .peers/mixbench/mixbench-cuda && nvcc -O3 -std=c++14 -arch=sm_90 --cudart=static -I. \
	main-cuda.cpp mix_kernels_cuda.cu -o /tmp/mixbench-cuda) >>"$log" 2>&1 || echo "mixbench build failed" >>"$log" &
wait
