#include <torch/extension.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "leaky_relu_launch.h"

namespace leaky {

at::Tensor leaky_relu(const at::Tensor& x, double slope)
{
    TORCH_CHECK(x.is_contiguous(), "x must be contiguous");
    at::Tensor y = at::empty_like(x);
    const uint32_t total = static_cast<uint32_t>(x.numel());
    const LeakyReluTiling t = leaky_relu_tiling(total, static_cast<uint32_t>(x.element_size()));
    void* stream = c10_npu::getCurrentNPUStream().stream(false);
    auto xp = reinterpret_cast<GM_ADDR>(x.data_ptr());
    auto yp = reinterpret_cast<GM_ADDR>(y.data_ptr());
    if (x.scalar_type() == at::kFloat) {
        launch_leaky_relu_float(xp, yp, total, static_cast<float>(slope), &t, stream);
    } else if (x.scalar_type() == at::kHalf) {
        launch_leaky_relu_half(xp, yp, total, static_cast<float>(slope), &t, stream);
    } else {
        TORCH_CHECK(false, "leaky_relu takes float32 or float16");
    }
    return y;
}

}  // namespace leaky

PYBIND11_MODULE(benchmark_ops, m)
{
    m.def("leaky_relu", &leaky::leaky_relu, "LeakyReLU (AscendC direct launch)");
}
