// ptxgen's C++ bridge over clang 19 / LLVM 19: process and context set-up, and the helpers
// bridge.h declares (bridge.h says how the entry points behave and lists the bridge's files).
#include "bridge.h"

using namespace llvm;

namespace {

struct FatalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void fatalHandler(void *, const char *reason, bool) {
  // Must not return (LLVM would exit): unwind to the entry point's catch.
  throw FatalError(std::string("LLVM fatal error: ") + (reason ? reason : "?"));
}

const Target *nvptxTarget(std::string &err) {
  return TargetRegistry::lookupTarget(kTriple, err);
}

} // namespace

char *dupString(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) {
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = 0;
  }
  return p;
}

void setLog(char **log, const std::string &s) {
  if (log) *log = dupString(s);
}

bool brokenIR(Module &M, std::string &report) {
  raw_string_ostream es(report);
  bool broken = verifyModule(M, &es);
  es.flush();
  return broken;
}

bool invalidIR(Module &M, const char *what, char **log) {
  std::string err;
  if (!brokenIR(M, err)) return false;
  setLog(log, std::string("internal error: invalid IR after ") + what + ":\n" + err);
  return true;
}

bool verifyEachEnabled() {
  static const bool on = [] {
    const char *v = std::getenv("PTXGEN_VERIFY_EACH");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

void verifyAfter(Module &M, const char *what) {
  if (!verifyEachEnabled()) return;
  std::string err;
  if (brokenIR(M, err))
    throw BridgeError(std::string("internal error: invalid IR after ") + what +
                      " (PTXGEN_VERIFY_EACH=1):\n" + err);
}

void diagHandler(const DiagnosticInfo *DI, void *ctx) {
  auto *L = static_cast<CtxLog *>(ctx);
  if (!L || !DI) return;
  if (DI->getSeverity() == DS_Remark || DI->getSeverity() == DS_Note) return;
  std::string msg;
  raw_string_ostream os(msg);
  DiagnosticPrinterRawOStream dp(os);
  DI->print(dp);
  os.flush();
  const char *sev = DI->getSeverity() == DS_Error ? "error" : "warning";
  if (DI->getSeverity() == DS_Error) L->error = true;
  L->text += std::string(sev) + ": " + msg + "\n";
}

CtxLog *ctxLog(LLVMContext &C) {
  return static_cast<CtxLog *>(C.getDiagnosticContext());
}

std::string takeCtxLog(LLVMContext &C) {
  CtxLog *L = ctxLog(C);
  if (!L) return {};
  std::string s = std::move(L->text);
  L->text.clear();
  return s;
}

// NVPTX's annotation cache: see bridge.h.
namespace llvm {
void clearAnnotationCache(const Module *);
}
void freshAnnotations(const Module &M) { llvm::clearAnnotationCache(&M); }

bool isKernel(const Function &F) {
  if (F.getCallingConv() == CallingConv::SPIR_KERNEL ||
      F.getCallingConv() == CallingConv::PTX_Kernel)
    return !F.isDeclaration();
  return false;
}

std::vector<Function *> kernelsOf(Module &M) {
  std::vector<Function *> ks;
  for (Function &F : M)
    if (isKernel(F)) ks.push_back(&F);
  return ks;
}

std::unique_ptr<TargetMachine> makeTM(int sm, int ptx, int opt, int fastFma, std::string &err) {
  const Target *T = nvptxTarget(err);
  if (!T) return nullptr;
  TargetOptions TO;
  TO.AllowFPOpFusion = fastFma ? FPOpFusion::Fast : FPOpFusion::Standard;
  std::string cpu = "sm_" + std::to_string(sm);
  std::string feat = "+ptx" + std::to_string(ptx);
  CodeGenOptLevel lvl = opt == 0 ? CodeGenOptLevel::None : CodeGenOptLevel::Aggressive;
  std::unique_ptr<TargetMachine> TM(
      T->createTargetMachine(kTriple, cpu, feat, TO, std::nullopt, std::nullopt, lvl));
  if (!TM) err = "cannot create the NVPTX target machine for " + cpu + " " + feat;
  return TM;
}

extern "C" {

// ---------------------------------------------------------------------------------------------
// Process and context set-up
// ---------------------------------------------------------------------------------------------

int pg_init(void) {
  static std::once_flag once;
  static int ok = 0;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    install_fatal_error_handler(fatalHandler, nullptr);
    install_bad_alloc_error_handler(fatalHandler, nullptr);
    ok = 1;
  });
  return ok;
}

void pg_free(char *p) { std::free(p); }

// Routes the context's diagnostics into a log (the default handler prints and may exit).
void pg_context_setup(LLVMContextRef cref) {
  LLVMContext &C = *unwrap(cref);
  if (C.getDiagnosticContext()) return;
  C.setDiagnosticHandlerCallBack(diagHandler, new CtxLog(), true);
}

void pg_context_teardown(LLVMContextRef cref) {
  LLVMContext &C = *unwrap(cref);
  CtxLog *L = ctxLog(C);
  C.setDiagnosticHandlerCallBack(nullptr, nullptr, true);
  delete L;
}

// Takes (and clears) what LLVM reported on this context. Sets *had_error if any was an error.
char *pg_context_take_log(LLVMContextRef cref, int *had_error) {
  LLVMContext &C = *unwrap(cref);
  CtxLog *L = ctxLog(C);
  if (had_error) *had_error = L && L->error ? 1 : 0;
  if (L) L->error = false;
  return dupString(takeCtxLog(C));
}

} // extern "C"

// inkwell's ExecutionEngine Drop references this symbol even though ptxgen never creates an
// execution engine; linking LLVM's ExecutionEngine library (and MCJIT behind it) for it would
// add megabytes. A no-op is correct since no engine can exist.
extern "C" void LLVMDisposeExecutionEngine(void *) {}
