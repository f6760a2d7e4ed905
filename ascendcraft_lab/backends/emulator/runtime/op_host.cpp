// The op harness of registered ops: what the framework does around a kernel of an msopgen project
// when an aclnn call runs it. From the tensors and attributes of the call it builds the
// TilingContext, runs the OpDef's TilingFunc, allocates the workspace it asked for, fills outputs
// that declare an InitValue, lays out tensor lists for dynamic inputs (ListTensorDesc) and
// launches the kernel with the tiling data and tiling key. Compiled into the runtime object.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "acemu/host/op.h"
#include "acemu/host/op_call.h"

namespace ops {
namespace {
std::map<std::string, OpDefFactory>& factories() {
    static std::map<std::string, OpDefFactory> f;  // filled by OP_ADD's static initialisers
    return f;
}
}  // namespace
bool acemu_register_op(const char* type, OpDefFactory factory) {
    factories()[type] = factory;
    return true;
}
}  // namespace ops

namespace acemu {
namespace rt {
std::string report_json(bool clear);
}

namespace op {
namespace {

struct Kernel {
    std::string name;
    int nargs = 0;
    KernelEntry fn = nullptr;
};
std::map<std::string, Kernel>& kernels() {
    static std::map<std::string, Kernel> k;
    return k;
}
std::mutex g_run_mu;  // one op at a time: the runtime's launch state is global

ops::OpDef* op_def(const std::string& type, std::string* error) {
    static std::map<std::string, std::unique_ptr<ops::OpDef>> made;
    auto it = made.find(type);
    if (it != made.end()) return it->second.get();
    auto f = ops::factories().find(type);
    if (f == ops::factories().end()) {
        *error = "no op `" + type + "` is registered (OP_ADD(" + type + ") in the host source)";
        return nullptr;
    }
    return (made[type] = f->second()).get();
}

gert::AttrValue attr_value(const Attr& a, const gert::AttrValue& def) {
    gert::AttrValue v;
    // The OpDef's declared type decides how the value is read (an aclnn int for a float attribute, say).
    gert::AttrValue::Kind want = def.kind;
    switch (a.kind) {
        case Attr::INT: v.kind = gert::AttrValue::INT; v.i = a.i; v.f = float(a.i); v.b = a.i != 0; break;
        case Attr::FLOAT: v.kind = gert::AttrValue::FLOAT; v.f = float(a.f); v.i = int64_t(a.f); break;
        case Attr::BOOL: v.kind = gert::AttrValue::BOOL; v.b = a.b; v.i = a.b; v.f = a.b; break;
        case Attr::STR: v.kind = gert::AttrValue::STR; v.s = a.s; break;
        case Attr::LIST_INT: v.kind = gert::AttrValue::LIST_INT; v.li.v_ = a.list_i; break;
        case Attr::LIST_FLOAT:
            v.kind = gert::AttrValue::LIST_FLOAT;
            for (double x : a.list_f) v.lf.v_.push_back(float(x));
            break;
    }
    if (want == gert::AttrValue::FLOAT || want == gert::AttrValue::INT || want == gert::AttrValue::BOOL) v.kind = want;
    return v;
}

gert::StorageShape storage(const Tensor& t) {
    gert::Shape s(t.shape);
    return gert::StorageShape(s, s);
}

uint64_t nbytes(const Tensor& t) {
    int64_t n = 1;
    for (int64_t d : t.shape) n *= d;
    return uint64_t(n) * uint64_t(ge::GetSizeByDataType(ge::DataType(t.dtype)));
}

template <typename T> void fill_as(void* p, uint64_t n, double v) {
    T x = T(v);
    for (uint64_t i = 0; i < n; ++i) std::memcpy(static_cast<uint8_t*>(p) + i * sizeof(T), &x, sizeof(T));
}
void fill(const Tensor& t, double v) {
    uint64_t n = nbytes(t) / std::max(1, ge::GetSizeByDataType(ge::DataType(t.dtype)));
    switch (ge::DataType(t.dtype)) {
        case ge::DT_FLOAT: fill_as<float>(t.data, n, v); break;
        case ge::DT_FLOAT16: fill_as<half>(t.data, n, v); break;
        case ge::DT_BF16: fill_as<bfloat16_t>(t.data, n, v); break;
        case ge::DT_INT32: fill_as<int32_t>(t.data, n, v); break;
        case ge::DT_INT16: fill_as<int16_t>(t.data, n, v); break;
        case ge::DT_INT8: fill_as<int8_t>(t.data, n, v); break;
        case ge::DT_UINT8: case ge::DT_BOOL: fill_as<uint8_t>(t.data, n, v); break;
        case ge::DT_INT64: fill_as<int64_t>(t.data, n, v); break;
        default: std::memset(t.data, 0, nbytes(t)); break;
    }
}

// ListTensorDesc's layout (acemu/gm_util.h): [pointer-table offset][dims|index<<32, dims...]...[pointers].
std::vector<uint64_t> tensor_list(const std::vector<Tensor>& list) {
    std::vector<uint64_t> words{0};
    for (size_t i = 0; i < list.size(); ++i) {
        words.push_back(uint64_t(list[i].shape.size()) | (uint64_t(i) << 32));
        for (int64_t d : list[i].shape) words.push_back(uint64_t(d));
    }
    words[0] = words.size() * 8;
    for (const Tensor& t : list) words.push_back(uint64_t(reinterpret_cast<uintptr_t>(t.data)));
    return words;
}

}  // namespace

bool register_kernel(const char* op_type, const char* kernel_name, int nargs, KernelEntry fn) {
    kernels()[op_type] = Kernel{kernel_name, nargs, fn};
    return true;
}

bool describe(const char* op_type, int* inputs, int* attrs, int* outputs, std::string* error) {
    ops::OpDef* def = op_def(op_type, error);
    if (!def) return false;
    *inputs = int(def->inputs_.size());
    *attrs = int(def->attrs_.size());
    *outputs = int(def->outputs_.size());
    return true;
}

std::string run(const Call& call) {
    std::lock_guard<std::mutex> lk(g_run_mu);
    std::string error;
    ops::OpDef* def = op_def(call.op_type, &error);
    if (!def) return error;
    auto kit = kernels().find(call.op_type);
    if (kit == kernels().end()) return "no kernel entry is registered for op `" + call.op_type + "`";
    const Kernel& kernel = kit->second;
    if (call.inputs.size() != def->inputs_.size() || call.outputs.size() != def->outputs_.size()) {
        return call.op_type + " declares " + std::to_string(def->inputs_.size()) + " input(s) and " +
               std::to_string(def->outputs_.size()) + " output(s) in its OpDef, but the call passes " +
               std::to_string(call.inputs.size()) + " and " + std::to_string(call.outputs.size());
    }
    if (call.attrs.size() > def->attrs_.size())
        return call.op_type + " declares " + std::to_string(def->attrs_.size()) + " attribute(s), the call passes " +
               std::to_string(call.attrs.size());
    if (!def->aicore_.tiling_) return call.op_type + "'s OpDef sets no tiling function (AICore().SetTiling)";

    gert::TilingContext ctx;
    ctx.name_ = call.op_type;
    ctx.type_ = call.op_type;
    for (size_t i = 0; i < call.inputs.size(); ++i) {
        gert::TilingContext::Io io;
        const std::vector<Tensor>& given = call.inputs[i];
        if (def->inputs_[i].type_ == ops::DYNAMIC) {
            std::vector<gert::Tensor> ts;
            std::vector<gert::StorageShape> ss;
            for (const Tensor& t : given) {
                ss.push_back(storage(t));
                ts.emplace_back(ss.back(), ge::DataType(t.dtype), t.data);
            }
            ctx.dynamic_[i] = ts;
            ctx.dynamic_shapes_[i] = ss;
        }
        if (given.empty() || !given[0].present) {
            io.present = false;
        } else {
            io.shape = storage(given[0]);
            io.tensor = gert::Tensor(io.shape, ge::DataType(given[0].dtype), given[0].data);
            io.desc = gert::CompileTimeTensorDesc(ge::DataType(given[0].dtype));
        }
        ctx.inputs_.push_back(io);
    }
    for (const Tensor& t : call.outputs) {
        gert::TilingContext::Io io;
        io.shape = storage(t);
        io.tensor = gert::Tensor(io.shape, ge::DataType(t.dtype), t.data);
        io.desc = gert::CompileTimeTensorDesc(ge::DataType(t.dtype));
        ctx.outputs_.push_back(io);
    }
    for (size_t j = 0; j < def->attrs_.size(); ++j)
        ctx.attrs_.attrs_.push_back(j < call.attrs.size() ? attr_value(call.attrs[j], def->attrs_[j].def_) : def->attrs_[j].def_);

    if (def->aicore_.tiling_(&ctx) != ge::GRAPH_SUCCESS) return call.op_type + "'s TilingFunc returned a failure status";
    if (ctx.block_dim_ == 0) return call.op_type + "'s TilingFunc set no block dim (context->SetBlockDim)";

    // The tiling data as the TilingFunc saved it (SaveToBuffer + SetDataSize, or GetTilingData<T>()).
    std::vector<uint8_t> tiling(static_cast<const uint8_t*>(ctx.tiling_.GetData()),
                                static_cast<const uint8_t*>(ctx.tiling_.GetData()) + ctx.tiling_.GetDataSize());
    uint64_t ws_bytes = 0;
    for (size_t w : ctx.workspaces_) ws_bytes += w;
    // The framework's workspace is not zeroed: start it with a visible pattern, as UB starts.
    std::vector<uint8_t> workspace(ws_bytes ? ws_bytes : 32, 0xff);

    for (size_t k = 0; k < call.outputs.size(); ++k)
        if (def->outputs_[k].init_) fill(call.outputs[k], def->outputs_[k].init_value_);

    std::vector<std::vector<uint64_t>> lists;
    std::vector<uint8_t*> args;
    std::vector<std::pair<const void*, uint64_t>> gm;
    for (size_t i = 0; i < call.inputs.size(); ++i) {
        const std::vector<Tensor>& given = call.inputs[i];
        if (def->inputs_[i].type_ == ops::DYNAMIC) {
            lists.push_back(tensor_list(given));
            args.push_back(reinterpret_cast<uint8_t*>(lists.back().data()));
            gm.push_back({lists.back().data(), lists.back().size() * 8});
            for (const Tensor& t : given) gm.push_back({t.data, nbytes(t)});
        } else if (given.empty() || !given[0].present) {
            args.push_back(nullptr);
        } else {
            args.push_back(static_cast<uint8_t*>(given[0].data));
            gm.push_back({given[0].data, nbytes(given[0])});
        }
    }
    for (const Tensor& t : call.outputs) {
        args.push_back(static_cast<uint8_t*>(t.data));
        gm.push_back({t.data, nbytes(t)});
    }
    args.push_back(workspace.data());
    gm.push_back({workspace.data(), ws_bytes});
    if (tiling.empty()) tiling.resize(8, 0);
    args.push_back(tiling.data());
    gm.push_back({tiling.data(), ctx.tiling_.GetDataSize()});
    if (int(args.size()) != kernel.nargs) {
        return "kernel " + kernel.name + " takes " + std::to_string(kernel.nargs) + " arguments, but " + call.op_type + "'s OpDef gives " +
               std::to_string(args.size()) + " (inputs, outputs, workspace, tiling)";
    }
    for (size_t i = 0; i < gm.size(); ++i) rt::register_gm(gm[i].first, gm[i].second, int(i));
    rt::set_tiling_key(ctx.tiling_key_);
    struct Closure { KernelEntry fn; uint8_t** args; } cl{kernel.fn, args.data()};
    rt::run_kernel(kernel.name.c_str(), ctx.block_dim_, [](void* p) { auto* c = static_cast<Closure*>(p); c->fn(c->args); }, &cl);
    rt::set_tiling_key(0);
    for (const auto& g : gm) rt::unregister_gm(g.first);
    return "";
}

}  // namespace op
}  // namespace acemu

extern "C" const char* acemu_take_report_json() {
    static thread_local std::string json;
    json = acemu::rt::report_json(true);
    return json.c_str();
}

// ---- the op harness's main (runner.run_op) ---------------------------------------------------
// argv[1] is a spec file written by runner.py, one item a line:
//   soc LINE | report PATH | op TYPE
//   input DTYPE NBYTES PATH NDIM D0 D1 ...   (one per OpDef input; `absent` for a left-out optional
//   list N                                    input; `list N` followed by N input lines for a dynamic one)
//   attr int V | attr float V | attr bool V | attr str V | attr ints N V... | attr floats N V...
//   output DTYPE NBYTES PATH NDIM D0 D1 ...
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <sstream>

namespace acemu {
namespace rt {
bool write_report_file(const char* path);
void set_trace_path(const char* path);
bool write_trace_file();
}
namespace op {
namespace {
// numpy's dtype names (bfloat16 as the runner spells it) -> ge::DataType.
bool dtype_of(const std::string& name, int32_t* dt) {
    static const std::map<std::string, ge::DataType> names = {
        {"float32", ge::DT_FLOAT}, {"float16", ge::DT_FLOAT16}, {"bfloat16", ge::DT_BF16}, {"int8", ge::DT_INT8},
        {"uint8", ge::DT_UINT8}, {"int16", ge::DT_INT16}, {"uint16", ge::DT_UINT16}, {"int32", ge::DT_INT32},
        {"uint32", ge::DT_UINT32}, {"int64", ge::DT_INT64}, {"uint64", ge::DT_UINT64}, {"float64", ge::DT_DOUBLE},
        {"bool", ge::DT_BOOL}};
    auto it = names.find(name);
    if (it == names.end()) return false;
    *dt = it->second;
    return true;
}

bool map_tensor(std::istringstream& in, Tensor* t, std::string* err) {
    std::string path, dtype;
    unsigned long long nbytes = 0;
    int ndim = 0;
    in >> dtype >> nbytes >> path >> ndim;
    if (!dtype_of(dtype, &t->dtype)) { *err = "unknown dtype " + dtype; return false; }
    t->shape.resize(size_t(ndim));
    for (int i = 0; i < ndim; ++i) in >> t->shape[size_t(i)];
    int fd = open(path.c_str(), O_RDWR);
    if (fd < 0) { *err = "cannot open " + path; return false; }
    void* p = mmap(nullptr, nbytes ? nbytes : 1, PROT_READ | PROT_WRITE, nbytes ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, nbytes ? fd : -1, 0);
    close(fd);
    if (p == MAP_FAILED) { *err = "cannot map " + path; return false; }
    t->data = p;
    return true;
}
}  // namespace

int harness_main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SPEC_FILE (written by ascendcraft_lab.backends.emulator.runner.run_op)\n", argv[0]);
        return 2;
    }
    FILE* spec = fopen(argv[1], "r");
    if (!spec) { perror(argv[1]); return 2; }
    Call call;
    std::string report, err;
    char buf[8192];
    int pending_list = 0;
    while (fgets(buf, sizeof(buf), spec)) {
        std::istringstream in(buf);
        std::string key;
        if (!(in >> key)) continue;
        if (key == "soc") {
            SocInfo s;
            if (rt::parse_soc_line(buf + 4, &s)) rt::set_soc(s);
        } else if (key == "report") {
            in >> report;
        } else if (key == "trace") {
            std::string path;
            in >> path;
            rt::set_trace_path(path.c_str());
        } else if (key == "op") {
            in >> call.op_type;
        } else if (key == "absent") {
            Tensor t;
            t.present = false;
            call.inputs.push_back({t});
        } else if (key == "list") {
            in >> pending_list;
            call.inputs.push_back({});
        } else if (key == "input") {
            Tensor t;
            if (!map_tensor(in, &t, &err)) break;
            if (pending_list > 0) {
                call.inputs.back().push_back(t);
                --pending_list;
            } else {
                call.inputs.push_back({t});
            }
        } else if (key == "output") {
            Tensor t;
            if (!map_tensor(in, &t, &err)) break;
            call.outputs.push_back(t);
        } else if (key == "attr") {
            std::string kind;
            in >> kind;
            Attr a;
            if (kind == "int") { a.kind = Attr::INT; in >> a.i; }
            else if (kind == "float") { a.kind = Attr::FLOAT; in >> a.f; }
            else if (kind == "bool") { a.kind = Attr::BOOL; int v = 0; in >> v; a.b = v != 0; }
            else if (kind == "str") { a.kind = Attr::STR; in >> a.s; }
            else if (kind == "ints") { a.kind = Attr::LIST_INT; int n = 0; in >> n; a.list_i.resize(size_t(n)); for (auto& v : a.list_i) in >> v; }
            else if (kind == "floats") { a.kind = Attr::LIST_FLOAT; int n = 0; in >> n; a.list_f.resize(size_t(n)); for (auto& v : a.list_f) in >> v; }
            call.attrs.push_back(a);
        }
    }
    fclose(spec);
    if (err.empty()) err = run(call);
    if (!err.empty()) {
        fprintf(stderr, "acemu: %s\n", err.c_str());
        return 3;
    }
    if (!report.empty() && !rt::write_report_file(report.c_str())) { perror(report.c_str()); return 2; }
    if (!rt::write_trace_file()) { perror("acemu: the trace file"); return 2; }
    return 0;
}
}  // namespace op
}  // namespace acemu
