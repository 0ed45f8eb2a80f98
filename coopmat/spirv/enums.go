package spirv

// Op is a SPIR-V opcode (SPIR-V 1.6 and SPV_KHR_cooperative_matrix); only ours are named.
type Op uint16

const (
	OpName                       Op = 5
	OpExtension                  Op = 10
	OpExtInstImport              Op = 11
	OpExtInst                    Op = 12
	OpMemoryModel                Op = 14
	OpEntryPoint                 Op = 15
	OpExecutionMode              Op = 16
	OpCapability                 Op = 17
	OpTypeVoid                   Op = 19
	OpTypeBool                   Op = 20
	OpTypeInt                    Op = 21
	OpTypeFloat                  Op = 22
	OpTypeVector                 Op = 23
	OpTypeArray                  Op = 28
	OpTypeRuntimeArray           Op = 29
	OpTypeStruct                 Op = 30
	OpTypePointer                Op = 32
	OpTypeFunction               Op = 33
	OpConstantTrue               Op = 41
	OpConstantFalse              Op = 42
	OpConstant                   Op = 43
	OpConstantComposite          Op = 44
	OpFunction                   Op = 54
	OpFunctionEnd                Op = 56
	OpVariable                   Op = 59
	OpLoad                       Op = 61
	OpStore                      Op = 62
	OpAccessChain                Op = 65
	OpDecorate                   Op = 71
	OpMemberDecorate             Op = 72
	OpCompositeConstruct         Op = 80
	OpCompositeExtract           Op = 81
	OpConvertSToF                Op = 111
	OpConvertUToF                Op = 112
	OpBitcast                    Op = 124
	OpIAdd                       Op = 128
	OpFAdd                       Op = 129
	OpISub                       Op = 130
	OpIMul                       Op = 132
	OpFMul                       Op = 133
	OpUDiv                       Op = 134
	OpUMod                       Op = 137
	OpIEqual                     Op = 170
	OpULessThan                  Op = 176
	OpSelect                     Op = 169
	OpShiftRightLogical          Op = 194
	OpShiftLeftLogical           Op = 196
	OpBitwiseXor                 Op = 198
	OpBitwiseAnd                 Op = 199
	OpControlBarrier             Op = 224
	OpPhi                        Op = 245
	OpLoopMerge                  Op = 246
	OpSelectionMerge             Op = 247
	OpLabel                      Op = 248
	OpBranch                     Op = 249
	OpBranchConditional          Op = 250
	OpReturn                     Op = 253
	OpSDot                       Op = 4450
	OpUDot                       Op = 4451
	OpTypeCooperativeMatrixKHR   Op = 4456
	OpCooperativeMatrixLoadKHR   Op = 4457
	OpCooperativeMatrixStoreKHR  Op = 4458
	OpCooperativeMatrixMulAddKHR Op = 4459
)

// Capability is a SPIR-V capability operand.
type Capability uint32

const (
	CapabilityShader                         Capability = 1
	CapabilityFloat16                        Capability = 9
	CapabilityFloat64                        Capability = 10
	CapabilityInt64                          Capability = 11
	CapabilityInt8                           Capability = 39
	CapabilityGroupNonUniform                Capability = 61
	CapabilityStorageBuffer16BitAccess       Capability = 4433
	CapabilityVulkanMemoryModel              Capability = 5345
	CapabilityPhysicalStorageBufferAddresses Capability = 5347
	CapabilityBFloat16TypeKHR                Capability = 5116
	CapabilityBFloat16CooperativeMatrixKHR   Capability = 5118
	CapabilityDotProductInput4x8BitPacked    Capability = 6018
	CapabilityDotProduct                     Capability = 6019
	CapabilityCooperativeMatrixKHR           Capability = 6022
)

// AddressingModel is the first operand of OpMemoryModel.
type AddressingModel uint32

const (
	AddressingLogical                 AddressingModel = 0
	AddressingPhysicalStorageBuffer64 AddressingModel = 5348
)

// MemoryModel is the second operand of OpMemoryModel.
type MemoryModel uint32

const (
	MemoryModelGLSL450 MemoryModel = 1
	MemoryModelVulkan  MemoryModel = 3
)

// ExecutionModel names the shader stage of an entry point.
type ExecutionModel uint32

const ExecutionModelGLCompute ExecutionModel = 5

// ExecutionMode is an OpExecutionMode operand; LocalSize takes x, y, z literals.
type ExecutionMode uint32

const ExecutionModeLocalSize ExecutionMode = 17

// StorageClass says where a variable lives.
type StorageClass uint32

const (
	StorageInput                 StorageClass = 1
	StorageWorkgroup             StorageClass = 4
	StorageFunction              StorageClass = 7
	StoragePushConstant          StorageClass = 9
	StorageStorageBuffer         StorageClass = 12
	StoragePhysicalStorageBuffer StorageClass = 5349
)

// LoopControl is OpLoopMerge's hint; PartialCount takes the unroll count.
type LoopControl uint32

const (
	LoopControlNone         LoopControl = 0
	LoopControlUnroll       LoopControl = 0x1
	LoopControlDontUnroll   LoopControl = 0x2
	LoopControlPartialCount LoopControl = 0x100
)

// MemoryAccess is the memory-operands mask of loads and stores. Aligned takes
// bytes (required through physical pointers); MakePointer* take a scope <id>.
type MemoryAccess uint32

const (
	MemoryAccessAligned              MemoryAccess = 0x2
	MemoryAccessMakePointerAvailable MemoryAccess = 0x8
	MemoryAccessMakePointerVisible   MemoryAccess = 0x10
	MemoryAccessNonPrivatePointer    MemoryAccess = 0x20
)

// Decoration is an OpDecorate/OpMemberDecorate operand.
type Decoration uint32

const (
	DecorationBlock         Decoration = 2
	DecorationArrayStride   Decoration = 6
	DecorationBuiltIn       Decoration = 11
	DecorationNonWritable   Decoration = 24
	DecorationNonReadable   Decoration = 25
	DecorationBinding       Decoration = 33
	DecorationDescriptorSet Decoration = 34
	DecorationOffset        Decoration = 35
	DecorationNoContraction Decoration = 42
)

// BuiltIn names a built-in variable (the literal of DecorationBuiltIn).
type BuiltIn uint32

const (
	BuiltInWorkgroupID          BuiltIn = 26
	BuiltInLocalInvocationID    BuiltIn = 27
	BuiltInGlobalInvocationID   BuiltIn = 28
	BuiltInLocalInvocationIndex BuiltIn = 29
	BuiltInSubgroupID           BuiltIn = 40
)

// Scope is a SPIR-V execution or memory scope (used as a constant <id>).
type Scope uint32

const (
	ScopeDevice    Scope = 1
	ScopeWorkgroup Scope = 2
	ScopeSubgroup  Scope = 3
)

// MemorySemantics is a bit mask (used as a constant <id>).
type MemorySemantics uint32

const (
	SemanticsAcquireRelease  MemorySemantics = 0x8
	SemanticsUniformMemory   MemorySemantics = 0x40
	SemanticsWorkgroupMemory MemorySemantics = 0x100
)

// MatrixUse is the Use operand of OpTypeCooperativeMatrixKHR.
type MatrixUse uint32

const (
	MatrixA           MatrixUse = 0
	MatrixB           MatrixUse = 1
	MatrixAccumulator MatrixUse = 2
)

// MatrixLayout is the MemoryLayout operand of cooperative-matrix loads and stores.
type MatrixLayout uint32

const (
	RowMajor    MatrixLayout = 0
	ColumnMajor MatrixLayout = 1
)

// MatrixOperands is the optional mask of OpCooperativeMatrixMulAddKHR.
type MatrixOperands uint32

const (
	MatrixASigned          MatrixOperands = 0x1
	MatrixBSigned          MatrixOperands = 0x2
	MatrixCSigned          MatrixOperands = 0x4
	MatrixResultSigned     MatrixOperands = 0x8
	SaturatingAccumulation MatrixOperands = 0x10
)

// FPEncoding is the optional third operand of OpTypeFloat (SPV_KHR_bfloat16).
type FPEncoding uint32

const FPEncodingBFloat16 FPEncoding = 0

// PackedVectorFormat says how OpSDot/OpUDot unpack a scalar (4x8Bit: low byte first).
type PackedVectorFormat uint32

const PackedVectorFormat4x8Bit PackedVectorFormat = 0

// GLSL.std.450 extended instructions our kernels use.
const (
	GLSLFma  uint32 = 50
	GLSLUMin uint32 = 38
)

// Version numbers for the module header.
const (
	Version13 uint32 = 0x00010300
	Version15 uint32 = 0x00010500
	Version16 uint32 = 0x00010600
)
