package gpu

/*
#cgo CFLAGS: -I/root/go/pkg/mod/github.com/cogentcore/webgpu@v0.23.0/wgpu/lib
#include <stdlib.h>
#include "webgpu.h"
static int scratchSpv(WGPUDevice dev, uint32_t const *code, uint32_t words) {
    WGPUShaderModuleSPIRVDescriptor sp = {0};
    sp.chain.sType = WGPUSType_ShaderModuleSPIRVDescriptor;
    sp.codeSize = words;
    sp.code = code;
    WGPUShaderModuleDescriptor d = {0};
    d.nextInChain = &sp.chain;
    d.label = "scratch";
    wgpuDevicePushErrorScope(dev, WGPUErrorFilter_Validation);
    WGPUShaderModule m = wgpuDeviceCreateShaderModule(dev, &d);
    if (m) wgpuShaderModuleRelease(m);
    return 0;
}
*/
import "C"
import "unsafe"

func (d *Device) scratchSPIRV(code []byte) {
	p := C.malloc(C.size_t(len(code)))
	defer C.free(p)
	copy(unsafe.Slice((*byte)(p), len(code)), code)
	C.scratchSpv(C.WGPUDevice(unsafe.Pointer(deviceHandle(d.dev))), (*C.uint32_t)(p), C.uint32_t(len(code)/4))
}
