// ptxgen's C++ bridge over clang 19 / LLVM 19: what the bridge's files share.
//
// Every entry point is extern "C", catches everything (LLVM fatal errors are turned into a C++
// exception by the handler installed in pg_init; `guarded` below), never prints, and reports
// failures as a status code plus a malloc'd log the caller frees with pg_free.
//
// Stages (each is one call, so the Rust side can time them):
//   pg_compile      OpenCL C (in-memory buffer, in-memory headers) -> llvm::Module
//   pg_lower        the rewrites CUDA needs (local args, implicit args, printf, annotations)
//   pg_link_libclc  link only the libclc functions the module needs (lazy bitcode module)
//   pg_optimize     the new-PM O3 (or O0) pipeline with the NVPTX TargetMachine's callbacks
//   pg_codegen      NVPTX -> PTX text
//
// Files: bridge.cpp (process and context set-up, the helpers below), frontend.cpp (clang),
// lower.cpp (pg_lower: the rewrites in order), abi.cpp (kernel signatures, implicit
// parameters, annotations), builtins.cpp (built-ins defined or lowered by ptxgen), libclc_fixes.cpp
// (libclc results fixed at their calls), nvptx_workarounds.cpp (what LLVM 19's NVPTX back end or
// ptxas get wrong), link.cpp (libclc, clLinkProgram), codegen.cpp (optimiser, code generation),
// split.cpp (one module per kernel), images.cpp, subgroups.cpp, half.cpp, atomics.cpp, spirv.cpp
// (pg_import_spirv: the SPIR-V translator's bitcode made into what pg_compile would give) and
// spirv_names.cpp (its built-in names in nvptx's mangling).
#pragma once

// The LLVM headers the bridge's files use (one list for all of them).
#include <llvm-c/Types.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/bit.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

inline constexpr const char *kTriple = "nvptx64-nvidia-cuda";

// Address spaces (OpenCL's, as clang numbers them for nvptx).
inline constexpr unsigned AS_LOCAL = 3;
inline constexpr unsigned AS_CONSTANT = 4;

// ---------------------------------------------------------------------------------------------
// Logs and status
// ---------------------------------------------------------------------------------------------

// A malloc'd copy of s (the caller frees it with pg_free).
char *dupString(const std::string &s);
// *log = a malloc'd copy of s (nothing when log is null).
void setLog(char **log, const std::string &s);

// True (the verifier's report appended to `report`) when M is not valid IR.
bool brokenIR(llvm::Module &M, std::string &report);
// True (with the verifier's report in the log) when M is not valid IR after `what`: a bug in
// ptxgen, reported as a failed build instead of crashing the back end.
bool invalidIR(llvm::Module &M, const char *what, char **log);

// PTXGEN_VERIFY_EACH=1: LLVM's module verifier runs after every IR rewrite (as PoCL can), and
// the first rewrite that leaves an invalid module fails the build with a log naming it. Off, a
// rewrite's bug shows only at the stage's final check (or in the back end).
bool verifyEachEnabled();
// With PTXGEN_VERIFY_EACH=1, throws a BridgeError naming `what` when M is not valid IR (the entry
// point's guard turns it into a failed build); otherwise nothing.
void verifyAfter(llvm::Module &M, const char *what);
// stride_unroll.cpp: run-time-stride loops unrolled in proven chunks (the knob decides).
void addStrideUnroll(llvm::PassBuilder &PB);
// Runs the rewrite `rewrite(M)`, then verifyAfter(M, name).
template <class Rewrite> void step(llvm::Module &M, const char *name, Rewrite &&rewrite) {
  rewrite(M);
  verifyAfter(M, name);
}

// ---------------------------------------------------------------------------------------------
// Libraries of built-ins written in OpenCL C (builtin_library.cpp)
// ---------------------------------------------------------------------------------------------

// Internal linkage, always_inline, no noinline/optnone: a library definition that vanishes into
// its callers.
void makeInternalInline(llvm::Function *F);
// The library's bitcode (bc, len; `file` names it in messages), in M's context, target and data
// layout; nullptr with the log set when it does not parse.
std::unique_ptr<llvm::Module> loadBuiltinLibrary(llvm::Module &M, const char *bc, size_t len,
                                                 const char *file, const char *what, char **log);
// Links the definitions of L that M calls ("only needed"), each made internal and always_inline
// (appended to *linked when given). False, with the log set, when the linker fails.
bool linkBuiltinLibrary(llvm::Module &M, std::unique_ptr<llvm::Module> L, const char *what, char **log,
                        std::vector<llvm::Function *> *linked = nullptr);

struct BridgeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Per-LLVMContext log of LLVM diagnostics (linker warnings/errors, backend remarks...).
struct CtxLog {
  std::string text;
  bool error = false;
};
void diagHandler(const llvm::DiagnosticInfo *DI, void *ctx);
CtxLog *ctxLog(llvm::LLVMContext &C);
// Takes (and clears) the context's log.
std::string takeCtxLog(llvm::LLVMContext &C);

// ---------------------------------------------------------------------------------------------
// The guard of every entry point
// ---------------------------------------------------------------------------------------------

// Runs an entry point's body. A C++ exception (LLVM's fatal errors become one) goes to
// `report` (its text, or nullptr for anything not a std::exception) and the result is `failed`.
template <class R, class Report, class Body>
R guardedReport(R failed, Report &&report, Body &&body) {
  try {
    return body();
  } catch (const std::exception &e) {
    report(e.what());
  } catch (...) {
    report(nullptr);
  }
  return failed;
}

// The usual guard: the exception's text in the log, or `internal` for anything else.
template <class R, class Body> R guarded(char **log, R failed, const char *internal, Body &&body) {
  return guardedReport(
      failed, [&](const char *what) { setLog(log, what ? what : internal); }, body);
}

// ---------------------------------------------------------------------------------------------
// Modules, kernels, the target
// ---------------------------------------------------------------------------------------------

// NVPTX's annotation cache (lib/Target/NVPTX/NVPTXUtilities.cpp, exported by the static library):
// a process-wide map from Module* and GlobalValue* to the nvvm.annotations read so far, cleared only
// at the end of NVPTX code generation. A function the optimiser asked about and then deleted leaves
// an entry (empty: "not a kernel") at its address; a kernel created later at that address
// (widenCharPairParams replaces a kernel with char2/uchar2 parameters just before code generation)
// was then emitted as a .func: no .entry, CUDA_ERROR_NOT_FOUND from cuModuleGetFunction (the CTS's
// basic parameter_types at vector size 2 on the H100; 1 build in 4 of the corpus's
// parameter_types.cl here). Every stage that lets NVPTX read annotations starts from a clear cache.
void freshAnnotations(const llvm::Module &M);

bool isKernel(const llvm::Function &F);
std::vector<llvm::Function *> kernelsOf(llvm::Module &M);
std::unique_ptr<llvm::TargetMachine> makeTM(int sm, int ptx, int opt, int fastFma,
                                            std::string &err);

// ---------------------------------------------------------------------------------------------
// The rewrites, by file (each file says what and why)
// ---------------------------------------------------------------------------------------------

// abi.cpp
bool used(llvm::Module &M, const char *name);
void detachKernelCalls(llvm::Function *F);
llvm::Function *rewriteKernel(llvm::Module &M, llvm::Function *F, bool needOffset, bool needDim,
                              bool needGroups);
void defineIdFunctions(llvm::Module &M, bool needOffset, bool needDim, bool needGroups);
void addAnnotation(llvm::Module &M, llvm::Function *F, const char *key, unsigned val);
bool hasKernelAnnotation(llvm::Module &M, llvm::Function *F);
void alignKernelPointerArgs(llvm::Function *F);
void forwardImplicitArgs(llvm::Module &M);
void defineLinearIds(llvm::Module &M);

// builtins.cpp
void lowerPrintf(llvm::Module &M);
void defineMacroBuiltins(llvm::Module &M);
void tagRelaxedDivisions(llvm::Module &M);
void relaxRootsAndQuotients(llvm::Module &M);
void lowerRelaxedDivisions(llvm::Module &M);
bool defineAtomic(llvm::Function &F);
void defineSaturatingConversions(llvm::Module &M);
void defineMissingBuiltins(llvm::Module &M);

// libclc_fixes.cpp
void fixMathCalls(llvm::Module &M);
void fixFloatSubnormalCalls(llvm::Module &M);
void defineLdexpDouble(llvm::Module &M);
void fixFrexpTgammaCalls(llvm::Module &M);
void fixTgammaDouble(llvm::Module &M);
void defineVstoreHalfDirected(llvm::Module &M);
void defineRoundingConversions(llvm::Module &M);
void defineSmoothstep(llvm::Module &M);

// nvptx_workarounds.cpp
void lowerNativeMath(llvm::Module &M);
void constantToGlobal(llvm::Module &M);
void stripTargetAttrs(llvm::Module &M);
void splitUnderalignedVectorAccesses(llvm::Module &M);
void scalarizeNarrowVectorCompares(llvm::Module &M);
void splitWideHalfExtends(llvm::Module &M);
void widenCharPairParams(llvm::Module &M);
bool ptxCvtGivesZeroForNaN(llvm::Type *from, llvm::Type *to);
void nanToZeroConversions(llvm::Module &M);

// codegen.cpp
void shareGatherAddresses(llvm::Module &M);

// link.cpp
void collectRefs(llvm::Value *V, llvm::SmallPtrSetImpl<llvm::Constant *> &seen,
                 std::vector<llvm::GlobalValue *> &out);

// spirv_names.cpp: a built-in's SPIR mangled name as clang mangles it for nvptx ("" if the same).
std::string nvptxMangledName(llvm::StringRef name);

// atomics.cpp: OpenCL C 2.0/3.0 atomics libclc lacks.
bool defineC11Atomic(llvm::Function &F);
