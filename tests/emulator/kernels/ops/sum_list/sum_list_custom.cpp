// Host side of SumListCustom: y = the sum of a dynamic list of equally shaped tensors. Each core
// adds its share of every tensor into y with atomic adds; y starts at 0 through InitValue.
#include <cstdint>
#include "sum_list_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SumListCustomTilingData tiling;
    const uint32_t total = uint32_t(context->GetDynamicInputShape(0, 0)->GetStorageShape().GetShapeSize());
    const uint32_t cores = 4;
    tiling.set_perCore(total / cores);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SumListCustom : public OpDef {
public:
    explicit SumListCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}).InitValue(0);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(SumListCustom);
}  // namespace ops
