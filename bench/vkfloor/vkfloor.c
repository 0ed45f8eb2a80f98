// vkfloor: Vulkan's own floor for a launch and a 1 MiB upload, with nothing
// of appraise in the way. It prints one JSON object per method on stdout:
// {"method": ..., "samples": n, "median_us": ..., "min_us": ..., "p10_us": ...}.
//
// Methods: an empty submit; an empty compute dispatch (fence polled or
// waited on) and a counting one (a storage buffer bound, a barrier before
// it); a 1 MiB copy from mapped host memory to device-local memory on the
// compute queue and, where the device has one, on a transfer-only queue,
// with the data already in the mapped memory ("pinned") or copied there
// first; a 1 MiB store from the host into device-local memory the host can
// map; and 256 MiB copies each way on each queue between device-local and
// host-cached or uncached mapped memory, as bandwidth ("median_gbps",
// 1e9 bytes/s). Usage: vkfloor [device index] [samples]; without an index
// the first discrete GPU, else the first device.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#define CHECK(x)                                                              \
	do {                                                                  \
		VkResult r_ = (x);                                            \
		if (r_ != VK_SUCCESS) {                                       \
			fprintf(stderr, "vkfloor: %s: %d\n", #x, r_);         \
			exit(1);                                              \
		}                                                             \
	} while (0)

enum { MiB = 1 << 20 };

// An empty GLCompute entry point, local size 1 (spirv-as of bench/vkfloor/empty.spvasm).
static const uint32_t empty_spv[] = {
	0x07230203, 0x00010300, 0x00070000, 0x00000005, 0x00000000, 0x00020011, 0x00000001,
	0x0003000e, 0x00000000, 0x00000001, 0x0005000f, 0x00000005, 0x00000001, 0x6e69616d,
	0x00000000, 0x00060010, 0x00000001, 0x00000011, 0x00000001, 0x00000001, 0x00000001,
	0x00020013, 0x00000002, 0x00030021, 0x00000003, 0x00000002, 0x00050036, 0x00000002,
	0x00000001, 0x00000000, 0x00000003, 0x000200f8, 0x00000004, 0x000100fd, 0x00010038,
};

// binding 0's word 0 += 1, one invocation (spirv-as of bench/vkfloor/counter.spvasm): the
// shape of appraise's own launch kernel, which counts its dispatches.
static const uint32_t counter_spv[] = {
	0x07230203, 0x00010300, 0x00070000, 0x0000000f, 0x00000000, 0x00020011, 0x00000001, 0x0003000e,
	0x00000000, 0x00000001, 0x0005000f, 0x00000005, 0x00000001, 0x6e69616d, 0x00000000, 0x00060010,
	0x00000001, 0x00000011, 0x00000001, 0x00000001, 0x00000001, 0x00030047, 0x00000002, 0x00000002,
	0x00050048, 0x00000002, 0x00000000, 0x00000023, 0x00000000, 0x00040047, 0x00000003, 0x00000022,
	0x00000000, 0x00040047, 0x00000003, 0x00000021, 0x00000000, 0x00020013, 0x00000004, 0x00030021,
	0x00000005, 0x00000004, 0x00040015, 0x00000006, 0x00000020, 0x00000000, 0x0003001e, 0x00000002,
	0x00000006, 0x00040020, 0x00000007, 0x0000000c, 0x00000002, 0x00040020, 0x00000008, 0x0000000c,
	0x00000006, 0x0004003b, 0x00000007, 0x00000003, 0x0000000c, 0x0004002b, 0x00000006, 0x00000009,
	0x00000000, 0x0004002b, 0x00000006, 0x0000000a, 0x00000001, 0x00050036, 0x00000004, 0x00000001,
	0x00000000, 0x00000005, 0x000200f8, 0x0000000b, 0x00050041, 0x00000008, 0x0000000c, 0x00000003,
	0x00000009, 0x0004003d, 0x00000006, 0x0000000d, 0x0000000c, 0x00050080, 0x00000006, 0x0000000e,
	0x0000000d, 0x0000000a, 0x0003003e, 0x0000000c, 0x0000000e, 0x000100fd, 0x00010038
};

static VkDevice dev;
static VkPhysicalDeviceMemoryProperties memprops;

static double now_us(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void report(const char *method, double *t, int n) {
	qsort(t, n, sizeof *t, cmp_double);
	printf("{\"method\": \"%s\", \"samples\": %d, \"median_us\": %.3f, \"min_us\": %.3f, \"p10_us\": %.3f}\n",
	       method, n, t[n / 2], t[0], t[n / 10]);
	fflush(stdout);
}

// find_type returns a memory type with all of want, preferring one that also has prefer; -1 if none.
static int find_type(uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) {
	int found = -1;
	for (uint32_t i = 0; i < memprops.memoryTypeCount; i++) {
		VkMemoryPropertyFlags f = memprops.memoryTypes[i].propertyFlags;
		if (!(bits & (1u << i)) || (f & want) != want)
			continue;
		if ((f & prefer) == prefer)
			return i;
		if (found < 0)
			found = i;
	}
	return found;
}

typedef struct {
	VkBuffer buf;
	VkDeviceMemory mem;
	void *map;
} buffer;

static int make_buffer(buffer *b, VkDeviceSize size, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) {
	VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
	CHECK(vkCreateBuffer(dev, &bi, NULL, &b->buf));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(dev, b->buf, &req);
	int t = find_type(req.memoryTypeBits, want, prefer);
	if (t < 0) {
		vkDestroyBuffer(dev, b->buf, NULL);
		return 0;
	}
	VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = t};
	CHECK(vkAllocateMemory(dev, &ai, NULL, &b->mem));
	CHECK(vkBindBufferMemory(dev, b->buf, b->mem, 0));
	b->map = NULL;
	if (memprops.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)
		CHECK(vkMapMemory(dev, b->mem, 0, size, 0, &b->map));
	return 1;
}

// round_trips submits cmd (none when cmd is NULL) n times, each timed from
// just before the submit to the fence signalled, polled or waited on.
static void round_trips(const char *method, VkQueue q, VkCommandBuffer cmd, int poll, const void *src, void *dst, int n, int warm) {
	VkFence fence;
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	CHECK(vkCreateFence(dev, &fi, NULL, &fence));
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = cmd ? 1 : 0, .pCommandBuffers = &cmd};
	double *t = malloc(sizeof(double) * n);
	for (int i = -warm; i < n; i++) {
		double t0 = now_us();
		if (src)
			memcpy(dst, src, MiB);
		CHECK(vkQueueSubmit(q, 1, &si, fence));
		if (poll) {
			VkResult r;
			while ((r = vkGetFenceStatus(dev, fence)) == VK_NOT_READY)
				;
			CHECK(r);
		} else {
			CHECK(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX));
		}
		double t1 = now_us();
		CHECK(vkResetFences(dev, 1, &fence));
		if (i >= 0)
			t[i] = t1 - t0;
	}
	report(method, t, n);
	free(t);
	vkDestroyFence(dev, fence, NULL);
}

// host_stores times n stores of 1 MiB from src into dst (device memory the
// host maps), each ended by a full fence.
static void host_stores(const char *method, const void *src, void *dst, int n, int warm) {
	double *t = malloc(sizeof(double) * n);
	for (int i = -warm; i < n; i++) {
		double t0 = now_us();
		memcpy(dst, src, MiB);
		__sync_synchronize();
		double t1 = now_us();
		if (i >= 0)
			t[i] = t1 - t0;
	}
	report(method, t, n);
	free(t);
}

// bulk times n copies of size bytes by cmd on q, each polled to its fence, and reports bytes/s.
static void bulk(const char *method, VkQueue q, VkCommandBuffer cmd, VkDeviceSize size, int n) {
	VkFence fence;
	VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	CHECK(vkCreateFence(dev, &fi, NULL, &fence));
	VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cmd};
	double *t = malloc(sizeof(double) * n);
	for (int i = -2; i < n; i++) {
		double t0 = now_us();
		CHECK(vkQueueSubmit(q, 1, &si, fence));
		VkResult r;
		while ((r = vkGetFenceStatus(dev, fence)) == VK_NOT_READY)
			;
		CHECK(r);
		double t1 = now_us();
		CHECK(vkResetFences(dev, 1, &fence));
		if (i >= 0)
			t[i] = t1 - t0;
	}
	qsort(t, n, sizeof *t, cmp_double);
	printf("{\"method\": \"%s\", \"samples\": %d, \"bytes\": %llu, \"median_gbps\": %.3f, \"max_gbps\": %.3f}\n",
	       method, n, (unsigned long long)size, size / t[n / 2] / 1e3, size / t[0] / 1e3);
	fflush(stdout);
	free(t);
	vkDestroyFence(dev, fence, NULL);
}

static VkCommandBuffer begin(VkCommandPool pool) {
	VkCommandBuffer cmd;
	VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
	CHECK(vkAllocateCommandBuffers(dev, &ai, &cmd));
	VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	CHECK(vkBeginCommandBuffer(cmd, &bi));
	return cmd;
}

static VkCommandBuffer record_copy(VkCommandPool pool, const buffer *src, const buffer *dst, VkDeviceSize size) {
	VkCommandBuffer cmd = begin(pool);
	VkBufferCopy c = {.size = size};
	vkCmdCopyBuffer(cmd, src->buf, dst->buf, 1, &c);
	CHECK(vkEndCommandBuffer(cmd));
	return cmd;
}

// record_dispatch records one dispatch of pipe; with set, after a barrier and with set bound.
static VkCommandBuffer record_dispatch(VkCommandPool pool, VkPipeline pipe, VkPipelineLayout layout, VkDescriptorSet set) {
	VkCommandBuffer cmd = begin(pool);
	if (set) {
		VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
			.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
		vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, NULL);
	}
	vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
	vkCmdDispatch(cmd, 1, 1, 1);
	CHECK(vkEndCommandBuffer(cmd));
	return cmd;
}

static VkPipeline make_pipeline(const uint32_t *code, size_t size, VkDescriptorSetLayout dsl, VkPipelineLayout *layout) {
	VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = size, .pCode = code};
	VkShaderModule sm;
	CHECK(vkCreateShaderModule(dev, &smi, NULL, &sm));
	VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = dsl ? 1 : 0, .pSetLayouts = &dsl};
	CHECK(vkCreatePipelineLayout(dev, &pli, NULL, layout));
	VkComputePipelineCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = sm, .pName = "main"},
		.layout = *layout};
	VkPipeline pipe;
	CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpi, NULL, &pipe));
	return pipe;
}

// counter_set makes a descriptor set of one storage buffer, buf, at binding 0.
static VkDescriptorSet counter_set(const buffer *buf, VkDescriptorSetLayout *dsl) {
	VkDescriptorSetLayoutBinding b = {.binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
		.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
	VkDescriptorSetLayoutCreateInfo li = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = 1, .pBindings = &b};
	CHECK(vkCreateDescriptorSetLayout(dev, &li, NULL, dsl));
	VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
	VkDescriptorPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps};
	VkDescriptorPool dp;
	CHECK(vkCreateDescriptorPool(dev, &pi, NULL, &dp));
	VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = dp, .descriptorSetCount = 1, .pSetLayouts = dsl};
	VkDescriptorSet set;
	CHECK(vkAllocateDescriptorSets(dev, &ai, &set));
	VkDescriptorBufferInfo bi = {.buffer = buf->buf, .range = VK_WHOLE_SIZE};
	VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0, .descriptorCount = 1,
		.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .pBufferInfo = &bi};
	vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
	return set;
}

int main(int argc, char **argv) {
	int want = argc > 1 ? atoi(argv[1]) : -1, n = argc > 2 ? atoi(argv[2]) : 2000, warm = n / 10;
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkfloor", .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
	VkInstance inst;
	CHECK(vkCreateInstance(&ici, NULL, &inst));
	uint32_t np = 16;
	VkPhysicalDevice pds[16];
	CHECK(vkEnumeratePhysicalDevices(inst, &np, pds));
	if (np == 0 || want >= (int)np) {
		fprintf(stderr, "vkfloor: no device %d among %u\n", want, np);
		return 1;
	}
	int pick = want;
	for (uint32_t i = 0; pick < 0 && i < np; i++) {
		VkPhysicalDeviceProperties p;
		vkGetPhysicalDeviceProperties(pds[i], &p);
		if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
			pick = i;
	}
	VkPhysicalDevice pd = pds[pick < 0 ? 0 : pick];
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(pd, &props);
	fprintf(stderr, "vkfloor: %s, driver %u, %d samples\n", props.deviceName, props.driverVersion, n);
	vkGetPhysicalDeviceMemoryProperties(pd, &memprops);

	uint32_t nq = 16;
	VkQueueFamilyProperties qf[16];
	vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);
	int compute = -1, transfer = -1;
	for (uint32_t i = 0; i < nq; i++) {
		VkQueueFlags f = qf[i].queueFlags;
		if (compute < 0 && (f & VK_QUEUE_COMPUTE_BIT))
			compute = i;
		if (transfer < 0 && (f & VK_QUEUE_TRANSFER_BIT) && !(f & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)))
			transfer = i;
	}
	float prio = 1;
	VkDeviceQueueCreateInfo qci[2] = {
		{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = compute, .queueCount = 1, .pQueuePriorities = &prio},
		{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = transfer, .queueCount = 1, .pQueuePriorities = &prio},
	};
	VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = transfer < 0 ? 1 : 2, .pQueueCreateInfos = qci};
	CHECK(vkCreateDevice(pd, &dci, NULL, &dev));
	VkQueue cq, tq = VK_NULL_HANDLE;
	vkGetDeviceQueue(dev, compute, 0, &cq);
	if (transfer >= 0)
		vkGetDeviceQueue(dev, transfer, 0, &tq);
	VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = compute};
	VkCommandPool pool, tpool = VK_NULL_HANDLE;
	CHECK(vkCreateCommandPool(dev, &cpci, NULL, &pool));
	if (tq) {
		cpci.queueFamilyIndex = transfer;
		CHECK(vkCreateCommandPool(dev, &cpci, NULL, &tpool));
	}

	const VkMemoryPropertyFlags hv = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	buffer staging, local, word, bar;
	if (!make_buffer(&staging, MiB, hv, VK_MEMORY_PROPERTY_HOST_CACHED_BIT) ||
	    !make_buffer(&local, MiB, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0) ||
	    !make_buffer(&word, 4, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)) {
		fprintf(stderr, "vkfloor: no host-visible or device-local memory\n");
		return 1;
	}
	char *src = malloc(MiB);
	for (int i = 0; i < MiB; i++)
		src[i] = (char)i;
	memcpy(staging.map, src, MiB);

	VkPipelineLayout empty_layout, counter_layout;
	VkDescriptorSetLayout dsl;
	VkPipeline empty = make_pipeline(empty_spv, sizeof empty_spv, VK_NULL_HANDLE, &empty_layout);
	VkDescriptorSet set = counter_set(&word, &dsl);
	VkPipeline counter = make_pipeline(counter_spv, sizeof counter_spv, dsl, &counter_layout);

	round_trips("empty-submit.fence-poll", cq, NULL, 1, NULL, NULL, n, warm);
	VkCommandBuffer dispatch = record_dispatch(pool, empty, empty_layout, VK_NULL_HANDLE);
	round_trips("dispatch.fence-poll", cq, dispatch, 1, NULL, NULL, n, warm);
	round_trips("dispatch.fence-wait", cq, dispatch, 0, NULL, NULL, n, warm);
	VkCommandBuffer counting = record_dispatch(pool, counter, counter_layout, set);
	round_trips("dispatch.counter-barrier.fence-poll", cq, counting, 1, NULL, NULL, n, warm);

	VkCommandBuffer copy = record_copy(pool, &staging, &local, MiB);
	round_trips("upload-1mib.pinned.copy-compute-queue.fence-poll", cq, copy, 1, NULL, NULL, n, warm);
	round_trips("upload-1mib.host-copy.copy-compute-queue.fence-poll", cq, copy, 1, src, staging.map, n, warm);
	if (tq) {
		VkCommandBuffer tcopy = record_copy(tpool, &staging, &local, MiB);
		round_trips("upload-1mib.pinned.copy-transfer-queue.fence-poll", tq, tcopy, 1, NULL, NULL, n, warm);
		round_trips("upload-1mib.host-copy.copy-transfer-queue.fence-poll", tq, tcopy, 1, src, staging.map, n, warm);
	}
	if (make_buffer(&bar, MiB, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | hv, 0))
		host_stores("upload-1mib.host-store-device-mapped", src, bar.map, n, warm);
	else
		fprintf(stderr, "vkfloor: no device-local memory the host can map\n");

	const VkDeviceSize big = 256ull * MiB;
	buffer dbig, hbig[2];
	const char *hname[2] = {"host-cached", "host-uncached"};
	int have[2];
	if (!make_buffer(&dbig, big, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0))
		return 0;
	have[0] = make_buffer(&hbig[0], big, hv | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, 0);
	have[1] = 0;
	for (uint32_t i = 0; i < memprops.memoryTypeCount; i++) { // an uncached host type, when there is one
		VkMemoryPropertyFlags f = memprops.memoryTypes[i].propertyFlags;
		if ((f & hv) == hv && !(f & (VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
			have[1] = make_buffer(&hbig[1], big, hv, 0);
	}
	for (int h = 0; h < 2; h++) {
		if (!have[h])
			continue;
		char m[128];
		VkCommandPool pools[2] = {pool, tpool};
		VkQueue qs[2] = {cq, tq};
		const char *qname[2] = {"compute-queue", "transfer-queue"};
		for (int q = 0; q < 2; q++) {
			if (!qs[q])
				continue;
			snprintf(m, sizeof m, "bulk.h2d.%s.%s", qname[q], hname[h]);
			bulk(m, qs[q], record_copy(pools[q], &hbig[h], &dbig, big), big, 10);
			snprintf(m, sizeof m, "bulk.d2h.%s.%s", qname[q], hname[h]);
			bulk(m, qs[q], record_copy(pools[q], &dbig, &hbig[h], big), big, 10);
		}
	}
	CHECK(vkDeviceWaitIdle(dev));
	return 0; // the process's exit releases the device
}
