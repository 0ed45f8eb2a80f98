// cudafloor: CUDA's floor for the figures vkfloor measures through Vulkan:
// an empty kernel launched and synchronised, and a 1 MiB copy from pinned
// host memory to the device, synchronised. One JSON object per method on
// stdout, as vkfloor prints. Usage: cudafloor [samples].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x)                                                                  \
	do {                                                                      \
		cudaError_t e_ = (x);                                             \
		if (e_ != cudaSuccess) {                                          \
			fprintf(stderr, "cudafloor: %s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(1);                                                  \
		}                                                                 \
	} while (0)

__global__ void empty() {}

template <typename F> static void measure(const char *method, int n, F f) {
	std::vector<double> t(n);
	for (int i = -n / 10; i < n; i++) {
		auto t0 = std::chrono::steady_clock::now();
		f();
		auto t1 = std::chrono::steady_clock::now();
		if (i >= 0)
			t[i] = std::chrono::duration<double, std::micro>(t1 - t0).count();
	}
	std::sort(t.begin(), t.end());
	printf("{\"method\": \"%s\", \"samples\": %d, \"median_us\": %.3f, \"min_us\": %.3f, \"p10_us\": %.3f}\n",
	       method, n, t[n / 2], t[0], t[n / 10]);
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 2000;
	const size_t MiB = 1 << 20;
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	void *host, *dev;
	CHECK(cudaMallocHost(&host, MiB));
	CHECK(cudaMalloc(&dev, MiB));
	measure("dispatch.stream-sync", n, [&] { empty<<<1, 1, 0, s>>>(); CHECK(cudaStreamSynchronize(s)); });
	measure("upload-1mib.pinned-copy.stream-sync", n, [&] {
		CHECK(cudaMemcpyAsync(dev, host, MiB, cudaMemcpyHostToDevice, s));
		CHECK(cudaStreamSynchronize(s));
	});
	return 0;
}
