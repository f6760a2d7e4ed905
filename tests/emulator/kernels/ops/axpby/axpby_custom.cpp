// Host side of AxpbyCustom: tiling from the platform's core count and UB size, the OpDef.
// Tiling key 1: every core's share is a whole number of 32-B blocks (DataCopy); key 2: it is not
// (DataCopyPad).
#include <algorithm>
#include <cstdint>
#include "axpby_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t QUEUES = 3;  // x, y in; z out

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    AxpbyCustomTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    const uint32_t coreNum = platform.GetCoreNumAiv();
    const uint32_t blockDim = std::max<uint32_t>(1, std::min<uint32_t>(coreNum, (totalLength + 1023) / 1024));
    const uint32_t blockLength = (totalLength + blockDim - 1) / blockDim;
    // All of the UB the platform reports, split into the queues' buffers, whole 32-B blocks each.
    const uint32_t tileLength = uint32_t(ubSize / (BUFFER_NUM * QUEUES) / sizeof(float)) / 8 * 8;
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_alpha(*context->GetAttrs()->GetFloat(0));
    context->SetBlockDim(blockDim);
    context->SetTilingKey(blockLength % 8 == 0 && totalLength % blockLength == 0 ? 1 : 2);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus InferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
static ge::graphStatus InferDataType(gert::InferDataTypeContext* context)
{
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class AxpbyCustom : public OpDef {
public:
    explicit AxpbyCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AxpbyCustom);
}  // namespace ops
