// The emulator's op harness, in plain C++: run a registered op (OpDef + TilingFunc + kernel) on
// host tensors, as an aclnn call would on the NPU. The torch shim behind EXEC_NPU_CMD and the
// tests call it; runtime/op_host.cpp implements it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace acemu {
namespace op {

struct Tensor {
    void* data = nullptr;           // host memory the kernel reads or writes in place
    std::vector<int64_t> shape;
    int32_t dtype = 0;              // ge::DataType
    bool present = true;            // false: an optional input left out
};

struct Attr {
    enum Kind { INT, FLOAT, BOOL, STR, LIST_INT, LIST_FLOAT } kind = INT;
    int64_t i = 0;
    double f = 0.0;
    bool b = false;
    std::string s;
    std::vector<int64_t> list_i;
    std::vector<double> list_f;
};

struct Call {
    std::string op_type;                       // the OpDef's type, e.g. "AddCustom"
    std::vector<std::vector<Tensor>> inputs;   // one entry per OpDef input; a dynamic input holds its list
    std::vector<Attr> attrs;                   // in OpDef order; missing trailing ones take their defaults
    std::vector<Tensor> outputs;
};

// Tiling, workspace and launch; "" on success, else one line saying what went wrong.
std::string run(const Call& call);

// The OpDef's inputs, attributes and outputs, so a caller can split an aclnn argument list.
bool describe(const char* op_type, int* inputs, int* attrs, int* outputs, std::string* error);

// The kernel entry of an op (the build registers it): GM arguments in kernel order.
using KernelEntry = void (*)(uint8_t** args);
bool register_kernel(const char* op_type, const char* kernel_name, int nargs, KernelEntry fn);

// main() of a binary built by runner.run_op: reads the run's spec, runs the op, writes the report.
int harness_main(int argc, char** argv);

}  // namespace op
}  // namespace acemu

// Findings of the launches since the last call, as the runner's report.json (and cleared).
extern "C" const char* acemu_take_report_json();
