// Linking a library of built-ins written in OpenCL C (src/builtin_library.rs: images.cl,
// subgroups.cl, mathlib.cl) into a program before libclc: its bitcode is parsed into the
// program's context, the definitions the program calls are linked "only needed", and each is
// made internal and always_inline so that it vanishes into its callers.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <string>

#include "bridge.h"

using namespace llvm;

void makeInternalInline(Function *F) {
  F->setLinkage(GlobalValue::InternalLinkage);
  F->removeFnAttr(Attribute::NoInline);
  F->removeFnAttr(Attribute::OptimizeNone);
  F->addFnAttr(Attribute::AlwaysInline);
}

std::unique_ptr<Module> loadBuiltinLibrary(Module &M, const char *bc, size_t len, const char *file,
                                           const char *what, char **log) {
  Expected<std::unique_ptr<Module>> parsed =
      parseBitcodeFile(MemoryBufferRef(StringRef(bc, len), file), M.getContext());
  if (!parsed) {
    setLog(log, std::string("error: the ") + what + " do not load: " + toString(parsed.takeError()) + "\n");
    return nullptr;
  }
  std::unique_ptr<Module> L = std::move(*parsed);
  L->setTargetTriple(M.getTargetTriple());
  L->setDataLayout(M.getDataLayout());
  return L;
}

bool linkBuiltinLibrary(Module &M, std::unique_ptr<Module> L, const char *what, char **log,
                        std::vector<Function *> *linked) {
  std::vector<std::string> builtins;
  for (Function &F : *L)
    if (!F.isDeclaration() && !F.hasLocalLinkage()) builtins.push_back(F.getName().str());
  if (Linker::linkModules(M, std::move(L), Linker::LinkOnlyNeeded)) {
    setLog(log, std::string("error: linking the ") + what + " failed\n");
    return false;
  }
  for (const std::string &n : builtins)
    if (Function *F = M.getFunction(n); F && !F->isDeclaration()) {
      makeInternalInline(F);
      if (linked) linked->push_back(F);
    }
  return true;
}
