// A registered op's host side (msopgen projects): OpDef with its inputs, outputs and attributes,
// OP_ADD, and the gert contexts its TilingFunc / InferShape / InferDataType take. The emulator's
// op harness (runtime/op_host.cpp) builds the contexts from the tensors of an aclnn call, runs the
// TilingFunc and launches the kernel with the tiling data, workspace and tiling key it chose.
// Clean-room implementation from Huawei's public documentation of the op development API.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "../tiling.h"
#include "graph.h"
#include "platform.h"

namespace gert {

// @api gert::TilingContext, InferShapeContext, InferDataTypeContext | partial: the getters and setters TilingFuncs use | TilingContext
class TilingContext {
public:
    const StorageShape* GetInputShape(size_t i) const { return i < inputs_.size() && inputs_[i].present ? &inputs_[i].shape : nullptr; }
    const StorageShape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    const StorageShape* GetDynamicInputShape(size_t ir, size_t rel) const {
        const Tensor* t = GetDynamicInputTensor(ir, rel);
        return t ? &dynamic_shapes_.at(ir).at(rel) : nullptr;
    }
    const StorageShape* GetOutputShape(size_t i) const { return i < outputs_.size() ? &outputs_[i].shape : nullptr; }
    const Tensor* GetInputTensor(size_t i) const { return i < inputs_.size() && inputs_[i].present ? &inputs_[i].tensor : nullptr; }
    const Tensor* GetOptionalInputTensor(size_t i) const { return GetInputTensor(i); }
    const Tensor* GetDynamicInputTensor(size_t ir, size_t rel) const {
        auto it = dynamic_.find(ir);
        return it != dynamic_.end() && rel < it->second.size() ? &it->second[rel] : nullptr;
    }
    const Tensor* GetOutputTensor(size_t i) const { return i < outputs_.size() ? &outputs_[i].tensor : nullptr; }
    const CompileTimeTensorDesc* GetInputDesc(size_t i) const { return i < inputs_.size() ? &inputs_[i].desc : nullptr; }
    const CompileTimeTensorDesc* GetOptionalInputDesc(size_t i) const { return GetInputDesc(i); }
    const CompileTimeTensorDesc* GetOutputDesc(size_t i) const { return i < outputs_.size() ? &outputs_[i].desc : nullptr; }
    size_t GetComputeNodeInputNum() const { return inputs_.size(); }
    size_t GetComputeNodeOutputNum() const { return outputs_.size(); }
    const RuntimeAttrs* GetAttrs() const { return &attrs_; }

    ge::graphStatus SetBlockDim(uint32_t blockDim) { block_dim_ = blockDim; return ge::GRAPH_SUCCESS; }
    uint32_t GetBlockDim() const { return block_dim_; }
    ge::graphStatus SetTilingKey(uint64_t key) { tiling_key_ = key; return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const { return tiling_key_; }
    ge::graphStatus SetScheduleMode(uint32_t mode) { schedule_mode_ = mode; return ge::GRAPH_SUCCESS; }
    ge::graphStatus SetNeedAtomic(bool) { return ge::GRAPH_SUCCESS; }
    TilingData* GetRawTilingData() { return &tiling_; }
    // CANN 9: the tiling data as a plain struct, written in place.
    template <typename T> T* GetTilingData() {
        if (tiling_.GetDataSize() < sizeof(T)) tiling_.SetDataSize(sizeof(T));
        return static_cast<T*>(tiling_.GetData());
    }
    size_t* GetWorkspaceSizes(size_t n) {
        if (workspaces_.size() < n) workspaces_.resize(n, 0);
        return workspaces_.data();
    }
    size_t GetWorkspaceNum() const { return workspaces_.size(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return &platform_; }
    const char* GetNodeName() const { return name_.c_str(); }
    const char* GetNodeType() const { return type_.c_str(); }
    int32_t GetDeterministic() const { return 0; }

    // Filled by the op harness.
    struct Io {
        bool present = true;
        StorageShape shape;
        Tensor tensor;
        CompileTimeTensorDesc desc;
    };
    std::vector<Io> inputs_, outputs_;
    std::map<size_t, std::vector<Tensor>> dynamic_;
    std::map<size_t, std::vector<StorageShape>> dynamic_shapes_;
    RuntimeAttrs attrs_;
    std::string name_, type_;
    uint32_t block_dim_ = 0, schedule_mode_ = 0;
    uint64_t tiling_key_ = 0;
    TilingData tiling_{64 * 1024};
    std::vector<size_t> workspaces_;
    mutable fe::PlatFormInfos platform_;
};

class InferShapeContext {
public:
    const Shape* GetInputShape(size_t i) const { return i < inputs_.size() ? &inputs_[i] : nullptr; }
    const Shape* GetOptionalInputShape(size_t i) const { return GetInputShape(i); }
    Shape* GetOutputShape(size_t i) { return i < outputs_.size() ? &outputs_[i] : nullptr; }
    const RuntimeAttrs* GetAttrs() const { return attrs_; }
    const Tensor* GetInputTensor(size_t i) const { return i < tensors_.size() ? &tensors_[i] : nullptr; }
    const char* GetNodeName() const { return "acemu"; }
    std::vector<Shape> inputs_, outputs_;
    std::vector<Tensor> tensors_;
    const RuntimeAttrs* attrs_ = nullptr;
};

class InferDataTypeContext {
public:
    ge::DataType GetInputDataType(size_t i) const { return i < inputs_.size() ? inputs_[i] : ge::DT_UNDEFINED; }
    ge::DataType GetOptionalInputDataType(size_t i) const { return GetInputDataType(i); }
    ge::graphStatus SetOutputDataType(size_t i, ge::DataType dt) {
        if (i >= outputs_.size()) outputs_.resize(i + 1, ge::DT_UNDEFINED);
        outputs_[i] = dt;
        return ge::GRAPH_SUCCESS;
    }
    ge::DataType GetOutputDataType(size_t i) const { return i < outputs_.size() ? outputs_[i] : ge::DT_UNDEFINED; }
    const RuntimeAttrs* GetAttrs() const { return attrs_; }
    std::vector<ge::DataType> inputs_, outputs_;
    const RuntimeAttrs* attrs_ = nullptr;
};

class InferShapeRangeContext {};
class TilingParseContext {};

}  // namespace gert

namespace ops {

enum Option { REQUIRED = 0, OPTIONAL, DYNAMIC, IGNORE };
using ParamTypeValue = Option;

class OpParamDef {
public:
    explicit OpParamDef(const char* name) : name_(name) {}
    OpParamDef& ParamType(Option t) { type_ = t; return *this; }
    OpParamDef& DataType(std::vector<ge::DataType> types) { dtypes_ = std::move(types); return *this; }
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) { dtypes_ = std::move(types); return *this; }
    OpParamDef& Format(std::vector<ge::Format> formats) { (void)formats; return *this; }
    OpParamDef& FormatList(std::vector<ge::Format> formats) { (void)formats; return *this; }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) { (void)formats; return *this; }
    OpParamDef& ValueDepend(Option) { return *this; }
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    OpParamDef& Scalar() { return *this; }
    OpParamDef& ScalarList() { return *this; }
    OpParamDef& Follow(const char*) { return *this; }
    OpParamDef& To(ge::DataType) { return *this; }
    // Output only: the framework fills the output with this value before the launch (atomic accumulation).
    OpParamDef& InitValue(uint64_t value) { init_ = true; init_value_ = double(value); return *this; }
    OpParamDef& InitValue(float value) { init_ = true; init_value_ = value; return *this; }
    OpParamDef& InitValue(int value) { init_ = true; init_value_ = value; return *this; }

    std::string name_;
    Option type_ = REQUIRED;
    std::vector<ge::DataType> dtypes_;
    bool init_ = false;
    double init_value_ = 0.0;
};

class OpAttrDef {
public:
    explicit OpAttrDef(const char* name) : name_(name) {}
    OpAttrDef& AttrType(Option t) { type_ = t; return *this; }
    OpAttrDef& Int(int64_t v = 0) { def_.kind = gert::AttrValue::INT; def_.i = v; return *this; }
    OpAttrDef& Float(float v = 0.0f) { def_.kind = gert::AttrValue::FLOAT; def_.f = v; return *this; }
    OpAttrDef& Bool(bool v = false) { def_.kind = gert::AttrValue::BOOL; def_.b = v; return *this; }
    OpAttrDef& String(const char* v = "") { def_.kind = gert::AttrValue::STR; def_.s = v; return *this; }
    OpAttrDef& ListInt(std::vector<int64_t> v = {}) { def_.kind = gert::AttrValue::LIST_INT; def_.li.v_ = std::move(v); return *this; }
    OpAttrDef& ListFloat(std::vector<float> v = {}) { def_.kind = gert::AttrValue::LIST_FLOAT; def_.lf.v_ = std::move(v); return *this; }
    OpAttrDef& ListBool(std::vector<bool> v = {}) { def_.kind = gert::AttrValue::LIST_BOOL; def_.lb.v_ = std::move(v); return *this; }

    std::string name_;
    Option type_ = REQUIRED;
    gert::AttrValue def_;
};

using TilingFuncType = std::function<ge::graphStatus(gert::TilingContext*)>;
using InferShapeFuncType = std::function<ge::graphStatus(gert::InferShapeContext*)>;
using InferDataTypeFuncType = std::function<ge::graphStatus(gert::InferDataTypeContext*)>;

class OpAICoreConfig {
public:
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }
    OpParamDef& Input(const char* name) { params_.emplace_back(name); return params_.back(); }
    OpParamDef& Output(const char* name) { params_.emplace_back(name); return params_.back(); }

private:
    std::vector<OpParamDef> params_;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(TilingFuncType fn) { tiling_ = std::move(fn); return *this; }
    template <typename F> OpAICoreDef& SetTilingParse(F) { return *this; }
    template <typename F> OpAICoreDef& SetCheckSupport(F) { return *this; }
    template <typename F> OpAICoreDef& SetOpSelectFormat(F) { return *this; }
    OpAICoreDef& AddConfig(const char* soc) { socs_.emplace_back(soc); return *this; }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { socs_.emplace_back(soc); return *this; }
    TilingFuncType tiling_;
    std::vector<std::string> socs_;
};

// @api OpDef, OP_ADD, Input, Output, Attr, SetInferShape, SetInferDataType, AICore().SetTiling | yes: InitValue fills outputs; formats are ND | OpDef
class OpDef {
public:
    explicit OpDef(const char* name) : name_(name) {}
    virtual ~OpDef() = default;
    OpParamDef& Input(const char* name) { inputs_.emplace_back(name); return inputs_.back(); }
    OpParamDef& Output(const char* name) { outputs_.emplace_back(name); return outputs_.back(); }
    OpAttrDef& Attr(const char* name) { attrs_.emplace_back(name); return attrs_.back(); }
    OpDef& SetInferShape(InferShapeFuncType fn) { infer_shape_ = std::move(fn); return *this; }
    template <typename F> OpDef& SetInferShapeRange(F) { return *this; }
    OpDef& SetInferDataType(InferDataTypeFuncType fn) { infer_dtype_ = std::move(fn); return *this; }
    OpAICoreDef& AICore() { return aicore_; }

    std::string name_;
    std::vector<OpParamDef> inputs_, outputs_;
    std::vector<OpAttrDef> attrs_;
    InferShapeFuncType infer_shape_;
    InferDataTypeFuncType infer_dtype_;
    OpAICoreDef aicore_;
};

using OpDefFactory = std::unique_ptr<OpDef> (*)();
// OP_ADD's registration: op type -> factory (runtime/op_host.cpp owns the table).
bool acemu_register_op(const char* type, OpDefFactory factory);

}  // namespace ops

#define OP_ADD(opType, ...)                                                                                         \
    static const bool acemu_op_registered_##opType =                                                                \
        ::ops::acemu_register_op(#opType, []() -> std::unique_ptr<::ops::OpDef> { return std::unique_ptr<::ops::OpDef>(new opType(#opType)); })
