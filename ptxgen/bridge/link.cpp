// Linking (split from bridge.cpp): libclc, "only needed" (from the process-wide context's lazy
// module or one parsed for the build), what ptxgen adds after it, and clLinkProgram.
#include "bridge.h"

using namespace llvm;

namespace {

// libclc files, mapped (mmap) once per process and kept: lazy bitcode modules refer to them.
std::mutex g_bufMu;
std::map<std::string, std::unique_ptr<MemoryBuffer>> g_bufs;

MemoryBuffer *libBuffer(const std::string &path, std::string &err) {
  std::lock_guard<std::mutex> lock(g_bufMu);
  auto it = g_bufs.find(path);
  if (it != g_bufs.end()) return it->second.get();
  auto b = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!b) {
    err = "cannot read libclc " + path + ": " + b.getError().message();
    return nullptr;
  }
  MemoryBuffer *raw = b->get();
  g_bufs[path] = std::move(*b);
  return raw;
}

std::unique_ptr<Module> lazyLibclc(LLVMContext &C, const std::string &path, const Module &like,
                                   std::string &err) {
  MemoryBuffer *buf = libBuffer(path, err);
  if (!buf) return nullptr;
  Expected<std::unique_ptr<Module>> lib =
      getLazyBitcodeModule(buf->getMemBufferRef(), C, /*ShouldLazyLoadMetadata=*/true);
  if (!lib) {
    err = "cannot read libclc " + path + ": " + toString(lib.takeError());
    return nullptr;
  }
  std::unique_ptr<Module> L = std::move(*lib);
  L->setTargetTriple(like.getTargetTriple());
  L->setDataLayout(like.getDataLayout());
  return L;
}

// What ptxgen adds after libclc, whichever way libclc was linked.
int finishLink(Module &M, char **log) {
  verifyAfter(M, "linking libclc");
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty() && !defineAtomic(F)) defineC11Atomic(F);
  verifyAfter(M, "defineAtomic and defineC11Atomic");
  // Anything still undefined can't be resolved on the device (except vprintf).
  std::string missing;
  for (Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic() || F.use_empty()) continue;
    if (F.getName() == "vprintf") continue;
    missing += "error: undefined function '" + F.getName().str() + "'\n";
  }
  if (!missing.empty()) {
    setLog(log, missing);
    return 1;
  }
  step(M, "stripTargetAttrs", stripTargetAttrs);
  step(M, "constantToGlobal", constantToGlobal);
  return invalidIR(M, "linking libclc", log) ? 1 : 0;
}

} // namespace

void collectRefs(Value *V, SmallPtrSetImpl<Constant *> &seen, std::vector<GlobalValue *> &out) {
  if (auto *G = dyn_cast<GlobalValue>(V)) {
    out.push_back(G);
    return;
  }
  if (auto *C = dyn_cast<Constant>(V)) {
    if (!seen.insert(C).second) return;
    for (Value *op : C->operands()) collectRefs(op, seen, out);
  }
}

namespace {

// "Only needed" linking without consuming the library: the definitions M needs are found in
// L (same LLVMContext, lazily materialised and kept), transitively, and cloned into M.
bool cloneNeeded(Module &M, Module &L, std::string &err) {
  std::vector<GlobalValue *> work;
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic())
      if (GlobalValue *G = L.getNamedValue(F.getName())) work.push_back(G);
  for (GlobalVariable &G : M.globals())
    if (G.isDeclaration())
      if (GlobalValue *LG = L.getNamedValue(G.getName())) work.push_back(LG);
  SetVector<GlobalValue *> needed, decls;
  SmallPtrSet<Constant *, 32> seen;
  while (!work.empty()) {
    GlobalValue *G = work.back();
    work.pop_back();
    if (G->isDeclaration()) {
      decls.insert(G);
      continue;
    }
    if (GlobalValue *D = M.getNamedValue(G->getName()); D && !D->isDeclaration()) {
      decls.insert(G);  // M has its own definition (e.g. get_global_id): keep it
      continue;
    }
    if (!needed.insert(G)) continue;
    if (Error e = G->materialize()) {
      err = toString(std::move(e));
      return false;
    }
    std::vector<GlobalValue *> refs;
    if (auto *F = dyn_cast<Function>(G)) {
      for (BasicBlock &BB : *F)
        for (Instruction &I : BB)
          for (Value *op : I.operands()) collectRefs(op, seen, refs);
    } else if (auto *GV = dyn_cast<GlobalVariable>(G)) {
      if (GV->hasInitializer()) collectRefs(GV->getInitializer(), seen, refs);
    } else if (auto *GA = dyn_cast<GlobalAlias>(G)) {
      collectRefs(GA->getAliasee(), seen, refs);
    }
    for (GlobalValue *r : refs) work.push_back(r);
  }
  ValueToValueMapTy VM;
  for (GlobalValue *G : decls) {
    if (GlobalValue *D = M.getNamedValue(G->getName())) {
      VM[G] = D;
    } else if (auto *F = dyn_cast<Function>(G)) {
      VM[G] = cast<Function>(M.getOrInsertFunction(F->getName(), F->getFunctionType()).getCallee());
    } else if (auto *GV = dyn_cast<GlobalVariable>(G)) {
      VM[G] = new GlobalVariable(M, GV->getValueType(), GV->isConstant(), GV->getLinkage(), nullptr,
                                 GV->getName(), nullptr, GV->getThreadLocalMode(),
                                 GV->getAddressSpace());
    } else {
      err = "unsupported libclc symbol " + G->getName().str();
      return false;
    }
  }
  for (GlobalValue *G : needed) {
    GlobalValue *D = M.getNamedValue(G->getName());
    if (auto *F = dyn_cast<Function>(G)) {
      Function *NF = Function::Create(F->getFunctionType(), F->getLinkage(), F->getAddressSpace(), "", &M);
      if (D) {
        D->replaceAllUsesWith(NF);
        NF->takeName(D);
        D->eraseFromParent();
      } else {
        NF->setName(F->getName());
      }
      NF->copyAttributesFrom(F);
      NF->setComdat(nullptr);
      NF->setPersonalityFn(nullptr);
      VM[F] = NF;
    } else if (auto *GV = dyn_cast<GlobalVariable>(G)) {
      auto *NG = new GlobalVariable(M, GV->getValueType(), GV->isConstant(), GV->getLinkage(),
                                    nullptr, "", nullptr, GV->getThreadLocalMode(),
                                    GV->getAddressSpace());
      if (D) {
        D->replaceAllUsesWith(NG);
        NG->takeName(D);
        D->eraseFromParent();
      } else {
        NG->setName(GV->getName());
      }
      NG->copyAttributesFrom(GV);
      NG->setComdat(nullptr);
      VM[GV] = NG;
    } else {
      err = "unsupported libclc definition " + G->getName().str();
      return false;
    }
  }
  for (GlobalValue *G : needed) {
    if (auto *F = dyn_cast<Function>(G)) {
      auto *NF = cast<Function>(VM[F]);
      auto NA = NF->arg_begin();
      for (Argument &A : F->args()) {
        NA->setName(A.getName());
        VM[&A] = &*NA++;
      }
      SmallVector<ReturnInst *, 4> rets;
      CloneFunctionInto(NF, F, VM, CloneFunctionChangeType::DifferentModule, rets);
    } else if (auto *GV = dyn_cast<GlobalVariable>(G)) {
      if (GV->hasInitializer())
        cast<GlobalVariable>(VM[GV])->setInitializer(MapValue(GV->getInitializer(), VM));
    }
  }
  return true;
}

// The process-wide context: builds that find it free run in it, so libclc's lazy module is
// parsed once and its materialised functions are reused. Guarded by the Rust side's mutex.
struct Shared {
  LLVMContext *ctx = nullptr;
  std::unique_ptr<Module> lib;
  std::string libPath;
  unsigned uses = 0;
};
Shared g_shared;
constexpr unsigned kSharedRecycle = 200;  // fresh context now and then: bounded growth

void sharedDrop() {
  g_shared.lib.reset();
  if (g_shared.ctx) {
    CtxLog *L = ctxLog(*g_shared.ctx);
    delete g_shared.ctx;
    delete L;
  }
  g_shared.ctx = nullptr;
  g_shared.libPath.clear();
  g_shared.uses = 0;
}
} // namespace

extern "C" {

// Caller holds the shared lock. Returns the shared context (created/recycled as needed), with
// libclc (`path`) loaded lazily in it; NULL with a log on failure.
LLVMContextRef pg_shared_acquire(const char *path, char **log) {
  auto failed = [&](const char *what) {
    setLog(log, what ? what : "internal error preparing the compiler context");
    sharedDrop();
  };
  return guardedReport<LLVMContextRef>(nullptr, failed, [&]() -> LLVMContextRef {
    if (g_shared.ctx && (g_shared.uses >= kSharedRecycle || g_shared.libPath != path)) sharedDrop();
    if (!g_shared.ctx) {
      g_shared.ctx = new LLVMContext();
      g_shared.ctx->setDiagnosticHandlerCallBack(diagHandler, new CtxLog(), true);
    }
    if (!g_shared.lib) {
      Module like("like", *g_shared.ctx);
      like.setTargetTriple(kTriple);
      like.setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
      std::string err;
      g_shared.lib = lazyLibclc(*g_shared.ctx, path, like, err);
      if (!g_shared.lib) {
        setLog(log, "error: " + err + "\n");
        sharedDrop();
        return nullptr;
      }
      g_shared.libPath = path;
    }
    g_shared.uses++;
    takeCtxLog(*g_shared.ctx);
    return wrap(g_shared.ctx);
  });
}

// Caller holds the shared lock and no module of the shared context is alive: drops it (after
// a failure, the context may hold half-built state).
void pg_shared_reset(void) {
  guarded(nullptr, 0, "", [] {
    sharedDrop();
    return 0;
  });
}

// Links the libclc functions the module uses: from the shared context's library when the
// module lives there, else from a lazy module parsed for this build. Returns 0 ok, 1 failure.
int pg_link_libclc(LLVMModuleRef mref, const char *path, char **log) {
  return guarded(log, 1, "internal error while linking libclc", [&] {
    Module &M = *unwrap(mref);
    LLVMContext &C = M.getContext();
    std::string err;
    takeCtxLog(C);
    if (g_shared.ctx == &C && g_shared.lib) {
      if (!cloneNeeded(M, *g_shared.lib, err)) {
        setLog(log, "linking libclc failed: " + err + "\n" + takeCtxLog(C));
        return 1;
      }
    } else {
      std::unique_ptr<Module> L = lazyLibclc(C, path, M, err);
      if (!L) {
        setLog(log, "error: " + err + "\n");
        return 1;
      }
      if (Linker::linkModules(M, std::move(L), Linker::LinkOnlyNeeded)) {
        setLog(log, "linking libclc failed:\n" + takeCtxLog(C));
        return 1;
      }
    }
    return finishLink(M, log);
  });
}

// Links `src` into `dst` (clLinkProgram). `src` is consumed. Returns 0 ok, 1 failure.
int pg_link_modules(LLVMModuleRef dst, LLVMModuleRef src, char **log) {
  return guarded(log, 1, "internal error while linking", [&] {
    Module &D = *unwrap(dst);
    std::unique_ptr<Module> S(unwrap(src));
    takeCtxLog(D.getContext());
    if (Linker::linkModules(D, std::move(S))) {
      setLog(log, "link error:\n" + takeCtxLog(D.getContext()));
      return 1;
    }
    return 0;
  });
}

} // extern "C"
