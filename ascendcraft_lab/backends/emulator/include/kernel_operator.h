// AscendCraft emulator: the AscendC kernel API for g++ on the CPU.
//
// A clean-room implementation written from Huawei's public AscendC documentation (no Huawei
// headers or implementation were used). Kernels written for an Ascend NPU compile unchanged;
// every block runs on the CPU with its own Unified Buffer, and the sanitizer reports what the
// hardware would silently get wrong (see backends/emulator/README.md).
#pragma once
#include "acemu/base.h"
#include "acemu/soc.h"
#include "acemu/tensor.h"
#include "acemu/pipe.h"
#include "acemu/sys.h"
#include "acemu/copy.h"
#include "acemu/vec_core.h"
#include "acemu/vec.h"
#include "acemu/gather.h"
#include "acemu/sort.h"
#include "acemu/reduce.h"
#include "acemu/reduce_pattern.h"
#include "acemu/gather_mask.h"
#include "acemu/adv.h"
#include "acemu/softmax.h"
#include "acemu/gm_util.h"
#include "acemu/cube.h"
#include "acemu/tiling.h"
#include "acemu/launch.h"
#include "acemu/toolchain.h"

// Not in the emulator (a kernel using them does not compile):
// @api ReduceRepeat, ReduceDataBlock | no: their only pages describe the Atlas 350 register API | ReduceRepeat
// @api operator forms (dst = a + b) | no | Binary operations
// @api Scatter | no | Scatter
// Still missing, by API family (what the production kernels of issue 37 were blocked on beyond what is here):
// @api LoadData3DV2, LoadData3DParamsV2 | no: cube, the L1 -> L0A image-to-column load | LoadData
// @api InitConstValue | no: cube, filling L1 / L0 with a constant | InitConstValue
// @api ReduceMean, ReduceProd, ReduceAny, ReduceAll with a Pattern::Reduce | no: high-level reduce (ReduceSum / ReduceMax / ReduceMin with AR and RA are here) | ReduceSum
// @api BatchMatmul, Matmul callbacks | no: high-level Matmul (A in CubeFormat::VECTOR, GEMV, is here) | Matmul
// @api TopK | no: high-level sort (Sort, Concat, Extract, GetSortLen are here) | TopK
