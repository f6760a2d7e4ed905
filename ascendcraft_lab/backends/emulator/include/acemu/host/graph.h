// Host-side types of a registered op: ge::DataType / Format / Shape / graphStatus and the gert
// shapes, tensors and attributes a TilingFunc reads.
// Clean-room implementation from Huawei's public documentation of the op development API (only
// what kernels' host code uses; the values of the enumerations are the emulator's own).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <string>
#include <vector>

namespace ge {

using graphStatus = uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;
constexpr graphStatus GRAPH_PARAM_INVALID = 50331649;

enum DataType : int32_t {
    DT_FLOAT = 0, DT_FLOAT16, DT_INT8, DT_INT32, DT_UINT8, DT_INT16, DT_UINT16, DT_UINT32, DT_INT64, DT_UINT64,
    DT_DOUBLE, DT_BOOL, DT_BF16, DT_INT4, DT_COMPLEX64, DT_COMPLEX128, DT_STRING, DT_UNDEFINED, DT_MAX
};
// Bytes per element (DT_INT4 and unknown types: 0).
inline int GetSizeByDataType(DataType dt) {
    switch (dt) {
        case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
        case DT_FLOAT16: case DT_INT16: case DT_UINT16: case DT_BF16: return 2;
        case DT_INT8: case DT_UINT8: case DT_BOOL: return 1;
        case DT_INT64: case DT_UINT64: case DT_DOUBLE: case DT_COMPLEX64: return 8;
        case DT_COMPLEX128: return 16;
        default: return 0;
    }
}

enum Format : int32_t { FORMAT_NCHW = 0, FORMAT_NHWC, FORMAT_ND, FORMAT_NC1HWC0, FORMAT_FRACTAL_Z, FORMAT_FRACTAL_NZ, FORMAT_NCDHW,
                        FORMAT_NDHWC, FORMAT_RESERVED, FORMAT_MAX };

class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    graphStatus SetDim(size_t idx, int64_t value) {
        if (idx >= dims_.size()) return GRAPH_FAILED;
        dims_[idx] = value;
        return GRAPH_SUCCESS;
    }
    std::vector<int64_t> GetDims() const { return dims_; }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }

private:
    std::vector<int64_t> dims_;
};

}  // namespace ge

namespace gert {

class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
    explicit Shape(const std::vector<int64_t>& dims) : dims_(dims) {}
    size_t GetDimNum() const { return dims_.size(); }
    int64_t GetDim(size_t idx) const { return idx < dims_.size() ? dims_[idx] : 0; }
    void SetDimNum(size_t n) { dims_.resize(n, 0); }
    void SetDim(size_t idx, int64_t value) {
        if (idx >= dims_.size()) dims_.resize(idx + 1, 0);
        dims_[idx] = value;
    }
    Shape& AppendDim(int64_t value) {
        dims_.push_back(value);
        return *this;
    }
    int64_t GetShapeSize() const {
        int64_t n = 1;
        for (int64_t d : dims_) n *= d;
        return n;
    }
    bool IsScalar() const { return dims_.empty(); }
    const int64_t& operator[](size_t idx) const { return dims_[idx]; }
    int64_t& operator[](size_t idx) { return dims_[idx]; }
    bool operator==(const Shape& o) const { return dims_ == o.dims_; }
    bool operator!=(const Shape& o) const { return dims_ != o.dims_; }
    const std::vector<int64_t>& acemu_dims() const { return dims_; }

private:
    std::vector<int64_t> dims_;
};

class StorageShape {
public:
    StorageShape() = default;
    StorageShape(const Shape& origin, const Shape& storage) : origin_(origin), storage_(storage) {}
    const Shape& GetOriginShape() const { return origin_; }
    const Shape& GetStorageShape() const { return storage_; }
    Shape& MutableOriginShape() { return origin_; }
    Shape& MutableStorageShape() { return storage_; }

private:
    Shape origin_, storage_;
};

// One input or output: its shape, type and format, and (the emulator's host is the device) its data.
class Tensor {
public:
    Tensor() = default;
    Tensor(const StorageShape& shape, ge::DataType dt, void* data) : shape_(shape), dtype_(dt), data_(data) {}
    const Shape& GetOriginShape() const { return shape_.GetOriginShape(); }
    const Shape& GetStorageShape() const { return shape_.GetStorageShape(); }
    const Shape& GetShape() const { return shape_.GetStorageShape(); }
    int64_t GetShapeSize() const { return shape_.GetStorageShape().GetShapeSize(); }
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
    ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
    template <typename T> const T* GetData() const { return static_cast<const T*>(data_); }
    const void* GetAddr() const { return data_; }
    size_t GetSize() const { return size_t(GetShapeSize()) * size_t(ge::GetSizeByDataType(dtype_)); }

private:
    StorageShape shape_;
    ge::DataType dtype_ = ge::DT_FLOAT;
    void* data_ = nullptr;
};

class CompileTimeTensorDesc {
public:
    CompileTimeTensorDesc() = default;
    explicit CompileTimeTensorDesc(ge::DataType dt) : dtype_(dt) {}
    ge::DataType GetDataType() const { return dtype_; }
    ge::Format GetOriginFormat() const { return ge::FORMAT_ND; }
    ge::Format GetStorageFormat() const { return ge::FORMAT_ND; }
    ge::Format GetFormat() const { return ge::FORMAT_ND; }

private:
    ge::DataType dtype_ = ge::DT_FLOAT;
};

template <typename T> class ContinuousVectorOf {
public:
    size_t GetSize() const { return v_.size(); }
    const T* GetData() const { return v_.data(); }
    std::vector<T> v_;
};
using ContinuousVector = ContinuousVectorOf<int64_t>;

// An attribute of the op, as the aclnn call passed it (or the OpDef's default).
struct AttrValue {
    enum Kind { NONE, INT, FLOAT, BOOL, STR, LIST_INT, LIST_FLOAT, LIST_BOOL } kind = NONE;
    int64_t i = 0;
    float f = 0.0f;
    bool b = false;
    std::string s;
    ContinuousVectorOf<int64_t> li;
    ContinuousVectorOf<float> lf;
    ContinuousVectorOf<bool> lb;
};

class RuntimeAttrs {
public:
    size_t GetAttrNum() const { return attrs_.size(); }
    const int64_t* GetInt(size_t i) const { return is(i, AttrValue::INT) ? &attrs_[i].i : nullptr; }
    const float* GetFloat(size_t i) const { return is(i, AttrValue::FLOAT) ? &attrs_[i].f : nullptr; }
    const bool* GetBool(size_t i) const { return is(i, AttrValue::BOOL) ? &attrs_[i].b : nullptr; }
    const char* GetStr(size_t i) const { return is(i, AttrValue::STR) ? attrs_[i].s.c_str() : nullptr; }
    const ContinuousVector* GetListInt(size_t i) const { return is(i, AttrValue::LIST_INT) ? &attrs_[i].li : nullptr; }
    const ContinuousVectorOf<float>* GetListFloat(size_t i) const { return is(i, AttrValue::LIST_FLOAT) ? &attrs_[i].lf : nullptr; }
    template <typename T> const T* GetAttrPointer(size_t i) const {
        if (i >= attrs_.size()) return nullptr;
        const AttrValue& a = attrs_[i];
        if constexpr (std::is_same<T, float>::value) return a.kind == AttrValue::FLOAT ? &a.f : nullptr;
        else if constexpr (std::is_same<T, int64_t>::value) return a.kind == AttrValue::INT ? &a.i : nullptr;
        else if constexpr (std::is_same<T, bool>::value) return a.kind == AttrValue::BOOL ? &a.b : nullptr;
        else if constexpr (std::is_same<T, char>::value) return a.kind == AttrValue::STR ? a.s.c_str() : nullptr;
        else if constexpr (std::is_same<T, ContinuousVector>::value) return a.kind == AttrValue::LIST_INT ? &a.li : nullptr;
        else return nullptr;
    }
    std::vector<AttrValue> attrs_;

private:
    bool is(size_t i, AttrValue::Kind k) const { return i < attrs_.size() && attrs_[i].kind == k; }
};

class TilingData {
public:
    explicit TilingData(size_t capacity = 0) : buf_(capacity, 0) {}
    void* GetData() { return buf_.data(); }
    const void* GetData() const { return buf_.data(); }
    size_t GetCapacity() const { return buf_.size(); }
    void SetDataSize(size_t n) { size_ = n; }
    size_t GetDataSize() const { return size_; }

private:
    std::vector<uint8_t> buf_;
    size_t size_ = 0;
};

}  // namespace gert
