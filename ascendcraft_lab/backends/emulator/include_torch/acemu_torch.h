// The torch side of the emulator in a CPU torch extension: the aclnn call behind EXEC_NPU_CMD runs
// the registered op on the emulator (acemu::op::run), with the torch tensors as its GM.
#pragma once
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <torch/extension.h>

#include "acemu/host/op_call.h"

namespace acemu_torch {

// ge::DataType of the emulator (acemu/host/graph.h), by name, so this header needs no kernel headers.
inline int32_t ge_dtype(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return 0;
        case at::kHalf: return 1;
        case at::kChar: return 2;
        case at::kInt: return 3;
        case at::kByte: return 4;
        case at::kShort: return 5;
        case at::kLong: return 8;
        case at::kDouble: return 10;
        case at::kBool: return 11;
        case at::kBFloat16: return 12;
        default: TORCH_CHECK(false, "the emulator has no NPU data type for torch's ", c10::toString(t));
    }
}

// One argument of an aclnn call: tensors (inputs and outputs) and attributes, in call order.
struct Item {
    enum Kind { TENSOR, TENSOR_LIST, ATTR } kind = ATTR;
    std::vector<at::Tensor> tensors;  // kept alive: a contiguous copy of a strided input
    bool present = true;
    acemu::op::Attr attr;
};

inline Item item(const at::Tensor& t) {
    Item it;
    it.kind = Item::TENSOR;
    it.present = t.defined();
    if (t.defined()) it.tensors.push_back(t);
    return it;
}
inline Item item(const c10::optional<at::Tensor>& t) { return t.has_value() ? item(*t) : item(at::Tensor()); }
inline Item item(at::TensorList list) {
    Item it;
    it.kind = Item::TENSOR_LIST;
    for (const at::Tensor& t : list) it.tensors.push_back(t);
    return it;
}
inline Item item(const std::vector<at::Tensor>& list) { return item(at::TensorList(list)); }
inline Item item(bool v) { Item it; it.attr.kind = acemu::op::Attr::BOOL; it.attr.b = v; return it; }
inline Item item(const std::string& v) { Item it; it.attr.kind = acemu::op::Attr::STR; it.attr.s = v; return it; }
inline Item item(const char* v) { return item(std::string(v)); }
inline Item item(const at::Scalar& v) {
    Item it;
    if (v.isIntegral(false)) { it.attr.kind = acemu::op::Attr::INT; it.attr.i = v.toLong(); }
    else if (v.isBoolean()) { it.attr.kind = acemu::op::Attr::BOOL; it.attr.b = v.toBool(); }
    else { it.attr.kind = acemu::op::Attr::FLOAT; it.attr.f = v.toDouble(); }
    return it;
}
inline Item item(at::IntArrayRef v) { Item it; it.attr.kind = acemu::op::Attr::LIST_INT; it.attr.list_i.assign(v.begin(), v.end()); return it; }
inline Item item(at::ArrayRef<double> v) { Item it; it.attr.kind = acemu::op::Attr::LIST_FLOAT; it.attr.list_f.assign(v.begin(), v.end()); return it; }
template <typename T, typename std::enable_if<std::is_arithmetic<T>::value && !std::is_same<T, bool>::value, int>::type = 0>
inline Item item(T v) {
    Item it;
    if (std::is_floating_point<T>::value) { it.attr.kind = acemu::op::Attr::FLOAT; it.attr.f = double(v); }
    else { it.attr.kind = acemu::op::Attr::INT; it.attr.i = int64_t(v); }
    return it;
}
template <typename T> inline Item item(const c10::optional<T>& v) {
    if (v.has_value()) return item(*v);
    Item it;
    it.present = false;
    return it;
}

inline acemu::op::Tensor view(at::Tensor& t, bool output) {
    TORCH_CHECK(t.device().is_cpu(), "the emulator runs CPU tensors; got one on ", t.device());
    if (!t.is_contiguous()) {
        TORCH_CHECK(!output, "an output of an aclnn call must be contiguous on the emulator");
        t = t.contiguous();
    }
    acemu::op::Tensor v;
    v.data = t.data_ptr();
    v.shape.assign(t.sizes().begin(), t.sizes().end());
    v.dtype = ge_dtype(t.scalar_type());
    return v;
}

// EXEC_NPU_CMD(aclnnXxx, args...): the arguments in aclnn order (inputs, attributes, outputs),
// split by the registered OpDef of Xxx.
template <typename... Args> inline void exec_cmd(const char* api, const Args&... args) {
    std::string name(api);
    const std::string op = name.rfind("aclnn", 0) == 0 ? name.substr(5) : name;
    std::vector<Item> items{item(args)...};
    int n_in = 0, n_attr = 0, n_out = 0;
    std::string error;
    TORCH_CHECK(acemu::op::describe(op.c_str(), &n_in, &n_attr, &n_out, &error), name, ": ", error);
    const int n_tensor_in = n_in;
    TORCH_CHECK(int(items.size()) >= n_tensor_in + n_out && int(items.size()) <= n_tensor_in + n_attr + n_out, name, " takes ",
                n_in, " input(s), up to ", n_attr, " attribute(s) and ", n_out, " output(s) (its OpDef); EXEC_NPU_CMD passes ",
                items.size(), " argument(s)");
    const int given_attrs = int(items.size()) - n_tensor_in - n_out;
    acemu::op::Call call;
    call.op_type = op;
    for (int k = 0; k < int(items.size()); ++k) {
        Item& it = items[size_t(k)];
        const bool is_input = k < n_tensor_in, is_output = k >= n_tensor_in + given_attrs;
        if (is_input || is_output) {
            TORCH_CHECK(it.kind != Item::ATTR, name, ": argument ", k, " should be a tensor (", is_input ? "input" : "output", ")");
            std::vector<acemu::op::Tensor> group;
            for (at::Tensor& t : it.tensors) group.push_back(view(t, is_output));
            if (!it.present) {
                acemu::op::Tensor absent;
                absent.present = false;
                group.push_back(absent);
            }
            if (is_input) call.inputs.push_back(group);
            else call.outputs.push_back(group.at(0));
        } else {
            TORCH_CHECK(it.kind == Item::ATTR, name, ": argument ", k, " should be an attribute");
            call.attrs.push_back(it.attr);
        }
    }
    const std::string err = acemu::op::run(call);
    TORCH_CHECK(err.empty(), name, ": ", err);
}

}  // namespace acemu_torch
