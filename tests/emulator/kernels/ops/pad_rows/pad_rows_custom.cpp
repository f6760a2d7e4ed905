// Host side of PadRowsCustom: y = x with every row padded to 32 B with `value` (Pad), z = y with
// the padding dropped again (UnPad). One core; the high-level APIs' tiling from their host functions.
#include <cstdint>
#include "pad_rows_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    PadRowsCustomTilingData tiling;
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const uint32_t height = uint32_t(x.GetDim(0)), width = uint32_t(x.GetDim(1));
    const uint32_t aligned = (width + 7) / 8 * 8;
    tiling.set_height(height);
    tiling.set_width(width);
    tiling.set_value(*context->GetAttrs()->GetFloat(0));
    uint32_t maxTmp = 0, minTmp = 0;
    const ge::Shape src({int64_t(height), int64_t(width)});
    AscendC::GetPadMaxMinTmpSize(src, sizeof(float), maxTmp, minTmp);
    AscendC::PadTilingFunc(src, src, minTmp, sizeof(float), tiling.padTiling);
    AscendC::UnPadTilingFunc(ge::Shape({int64_t(height), int64_t(aligned)}), minTmp, sizeof(float), tiling.unpadTiling);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    *context->GetWorkspaceSizes(1) = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class PadRowsCustom : public OpDef {
public:
    explicit PadRowsCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("value").AttrType(OPTIONAL).Float(0.0f);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(PadRowsCustom);
}  // namespace ops
