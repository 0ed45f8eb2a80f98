package cublaslt

import (
	"fmt"

	"github.com/everycycle/appraise/internal/platform/cuda"
)

// The CUDA enum values the probe passes, from NVIDIA's headers; each group
// names its header and enum.

// cudaDataType_t, library_types.h.
const (
	cudaR32F    = 0  // CUDA_R_32F
	cudaR64F    = 1  // CUDA_R_64F
	cudaR16F    = 2  // CUDA_R_16F
	cudaR8I     = 3  // CUDA_R_8I
	cudaR32I    = 10 // CUDA_R_32I
	cudaR16BF   = 14 // CUDA_R_16BF
	cudaR8FE4M3 = 28 // CUDA_R_8F_E4M3 (also CUDA_R_8F_UE4M3, the NVFP4 scale type)
	cudaR8FE5M2 = 29 // CUDA_R_8F_E5M2
	cudaR6FE2M3 = 31 // CUDA_R_6F_E2M3 (CUDA 12.8+)
	cudaR6FE3M2 = 32 // CUDA_R_6F_E3M2 (CUDA 12.8+)
	cudaR4FE2M1 = 33 // CUDA_R_4F_E2M1 (CUDA 12.8+)
)

// cublasComputeType_t, cublas_api.h.
const (
	computeF16     = 64 // CUBLAS_COMPUTE_16F
	computeF32     = 68 // CUBLAS_COMPUTE_32F
	computeF64     = 70 // CUBLAS_COMPUTE_64F
	computeI32     = 72 // CUBLAS_COMPUTE_32I
	computeF32TF32 = 77 // CUBLAS_COMPUTE_32F_FAST_TF32
	cublasOpN      = 0  // cublasOperation_t CUBLAS_OP_N, cublas_api.h
	cublasOpT      = 1  // cublasOperation_t CUBLAS_OP_T, cublas_api.h
)

// cublasLtMatmulDescAttributes_t, cublasLt.h.
const (
	descTransA       = 3  // CUBLASLT_MATMUL_DESC_TRANSA (int32 cublasOperation_t)
	descTransB       = 4  // CUBLASLT_MATMUL_DESC_TRANSB
	descAScalePtr    = 17 // CUBLASLT_MATMUL_DESC_A_SCALE_POINTER (const void*)
	descBScalePtr    = 18 // CUBLASLT_MATMUL_DESC_B_SCALE_POINTER
	descAScaleMode   = 31 // CUBLASLT_MATMUL_DESC_A_SCALE_MODE (int32, CUDA 12.8+)
	descBScaleMode   = 32 // CUBLASLT_MATMUL_DESC_B_SCALE_MODE (CUDA 12.8+)
	prefMaxWorkspace = 1  // cublasLtMatmulPreferenceAttributes_t CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES (uint64)
)

// cublasLtMatmulMatrixScale_t, cublasLt.h (CUDA 12.8+).
const (
	blockScaleSince = 120800 // the first cublasLtGetVersion with scale modes
	scaleVec16UE4M3 = 1      // CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
	scaleVec32UE8M0 = 2      // CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0
)

// cublasStatus_t, cublas_api.h.
var cublasStatusNames = map[int]string{
	0:  "CUBLAS_STATUS_SUCCESS",
	1:  "CUBLAS_STATUS_NOT_INITIALIZED",
	3:  "CUBLAS_STATUS_ALLOC_FAILED",
	7:  "CUBLAS_STATUS_INVALID_VALUE",
	8:  "CUBLAS_STATUS_ARCH_MISMATCH",
	11: "CUBLAS_STATUS_MAPPING_ERROR",
	13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR",
	15: "CUBLAS_STATUS_NOT_SUPPORTED",
	16: "CUBLAS_STATUS_LICENSE_ERROR",
}

// StatusError is a failed cuBLASLt call's cublasStatus_t.
type StatusError struct {
	Code int
}

func (e *StatusError) Error() string {
	if n, ok := cublasStatusNames[e.Code]; ok {
		return fmt.Sprintf("%s (%d)", n, e.Code)
	}
	return fmt.Sprintf("cublasStatus_t %d", e.Code)
}

// DriverError is a failed CUDA driver call's CUresult and its name.
type DriverError = cuda.Error

// cudaType is t's cudaDataType_t; tf32 data is stored as CUDA_R_32F.
func cudaType(t Type) int {
	return map[Type]int{
		F64: cudaR64F, F32: cudaR32F, TF32: cudaR32F, F16: cudaR16F, BF16: cudaR16BF,
		F8E4M3: cudaR8FE4M3, F8E5M2: cudaR8FE5M2, F6E2M3: cudaR6FE2M3, F6E3M2: cudaR6FE3M2,
		F4E2M1: cudaR4FE2M1, I8: cudaR8I, I32: cudaR32I,
	}[t]
}

// computeAndScale is p's cublasComputeType_t and the type of alpha and beta.
func computeAndScale(p Precision) (compute, scale int) {
	switch {
	case p.Acc == F16:
		return computeF16, cudaR16F
	case p.Acc == F64:
		return computeF64, cudaR64F
	case p.Acc == I32:
		return computeI32, cudaR32I
	case p.A == TF32:
		return computeF32TF32, cudaR32F
	}
	return computeF32, cudaR32F
}

// scaleMode is the cublasLtMatmulMatrixScale_t of a block scaling.
func scaleMode(s Scaling) int32 {
	if s == ScaleBlock16UE4M3 {
		return scaleVec16UE4M3
	}
	return scaleVec32UE8M0
}

// scalar encodes v as an alpha/beta value of cudaDataType_t scale.
func scalar(scale int, v float64) []byte {
	b := make([]byte, 8)
	switch scale {
	case cudaR16F:
		put(b, F16, 0, encode(F16, v))
	case cudaR64F:
		put(b, F64, 0, encode(F64, v))
	case cudaR32I:
		put(b, I32, 0, uint64(uint32(int32(v))))
	default:
		put(b, F32, 0, encode(F32, v))
	}
	return b
}
