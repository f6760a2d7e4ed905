// torch_npu's current stream, on the emulator: launches are synchronous, so the stream is a token.
#pragma once
#include <c10/core/Device.h>

// @api c10_npu::getCurrentNPUStream | yes: a token, launches are synchronous | torch_npu
namespace c10_npu {
class NPUStream {
public:
    void* stream(bool need_empty = true) const { (void)need_empty; return nullptr; }
    c10::Device device() const { return c10::Device(c10::DeviceType::CPU); }
    void synchronize() const {}
};
inline NPUStream getCurrentNPUStream(c10::DeviceIndex device_index = -1) { (void)device_index; return NPUStream(); }
inline NPUStream getDefaultNPUStream(c10::DeviceIndex device_index = -1) { (void)device_index; return NPUStream(); }
}  // namespace c10_npu
