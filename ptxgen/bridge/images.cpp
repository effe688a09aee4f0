// ptxgen's link step for the OpenCL image built-ins (src/images.cl, src/images.rs).
//
// Before libclc is linked, a program that calls read_image*/write_image*/get_image_* gets the
// definitions it calls from images.cl's bitcode (compiled once per process by the Rust side),
// "only needed", made internal so that they inline and vanish. images.cl leaves two helpers to
// this step, as OpenCL C cannot look inside an image or a sampler:
//   __cudacl_desc(image)    -> the image value itself: a __global pointer to its descriptor;
//   __cudacl_sampler(s)     -> the sampler's bits (sampler_t is a pointer-typed value holding them).
// And clang's __translate_sampler_initializer(bits), through which every in-kernel or
// program-scope `const sampler_t` arrives, gives the same representation back: the bits as a
// pointer value. So a sampler argument (the runtime writes the bits into its 8-byte slot) and a
// constant sampler look the same to images.cl, and a constant one folds away after inlining.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm-c/Types.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace {

void setImagesLog(char **log, const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) std::memcpy(p, s.c_str(), s.size() + 1);
  *log = p;
}

// A call of one of OpenCL's image built-ins (mangled: _Z<len>read_imagef..., _Z<len>get_image_...).
bool isImageBuiltin(StringRef n) {
  if (!n.starts_with("_Z")) return false;
  n = n.drop_front(2).ltrim("0123456789");
  return n.starts_with("read_image") || n.starts_with("write_image") || n.starts_with("get_image_");
}

void makeInternalInline(Function *F) {
  F->setLinkage(GlobalValue::InternalLinkage);
  F->removeFnAttr(Attribute::NoInline);
  F->removeFnAttr(Attribute::OptimizeNone);
  F->addFnAttr(Attribute::AlwaysInline);
}

// __translate_sampler_initializer(i32 bits) -> the bits as a pointer value.
void defineSamplerInitializer(Module &M) {
  Function *F = M.getFunction("__translate_sampler_initializer");
  if (!F || !F->isDeclaration() || F->arg_size() != 1 || !F->getReturnType()->isPointerTy() ||
      !F->getArg(0)->getType()->isIntegerTy())
    return;
  makeInternalInline(F);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "entry", F));
  Value *bits = B.CreateZExt(F->getArg(0), B.getInt64Ty());
  B.CreateRet(B.CreateIntToPtr(bits, F->getReturnType()));
}

// The two helpers images.cl declares (see the top of this file).
bool defineHelpers(Module &L, std::string &err) {
  for (Function &F : L) {
    if (!F.isDeclaration()) continue;
    StringRef n = F.getName();
    bool desc = n.starts_with("_Z13__cudacl_desc");
    bool sampler = n == "__cudacl_sampler";
    if (!desc && !sampler) continue;
    if (F.arg_size() != 1 || !F.getArg(0)->getType()->isPointerTy()) {
      err = "images: unexpected signature of " + n.str();
      return false;
    }
    makeInternalInline(&F);
    IRBuilder<> B(BasicBlock::Create(L.getContext(), "entry", &F));
    Value *a = F.getArg(0);
    if (desc)
      B.CreateRet(a->getType() == F.getReturnType() ? a : B.CreateAddrSpaceCast(a, F.getReturnType()));
    else
      B.CreateRet(B.CreateTrunc(B.CreatePtrToInt(a, B.getInt64Ty()), F.getReturnType()));
  }
  return true;
}

// OpenCL C makes every function and call, inline asm included, `convergent` (it might hold a
// barrier); the image built-ins hold none (suld/sust and arithmetic), and convergent calls keep
// LLVM from unswitching a loop on a uniform test (a read's format test, images.cl's fast paths).
void dropConvergent(Module &L) {
  for (Function &F : L) {
    F.removeFnAttr(Attribute::Convergent);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I)) CB->removeFnAttr(Attribute::Convergent);
  }
}

// Marks every function argument that holds an image as what it is: the address of a 64-byte
// descriptor (ptxgen/README.md, "Images"), 64-byte aligned at least, that the kernel only reads
// and reaches through no other pointer (the host writes it before the launch): dereferenceable,
// align 64, readonly, noalias. So LLVM may load descriptor fields speculatively, hoist them and
// the tests on them out of loops even past stores to buffers, and unswitch loops on them (a read
// under a format test in a loop, images.cl's fast paths). An image argument is one passed as the
// image operand (the first) of an image built-in, or, through helper functions, passed on to one.
void markImageArguments(Module &M, const std::vector<Function *> &builtins) {
  std::vector<Value *> work;
  for (Function *B : builtins)
    for (User *U : B->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == B && CB->arg_size() > 0)
        work.push_back(CB->getArgOperand(0));
  std::vector<Value *> visited;
  while (!work.empty()) {
    Value *V = work.back()->stripPointerCasts();
    work.pop_back();
    if (std::find(visited.begin(), visited.end(), V) != visited.end()) continue;
    visited.push_back(V);
    // Unoptimised front-end code keeps arguments in allocas: an image loaded from one is any
    // value stored into it.
    if (auto *L = dyn_cast<LoadInst>(V))
      if (auto *AI = dyn_cast<AllocaInst>(L->getPointerOperand()->stripPointerCasts())) {
        for (User *U : AI->users())
          if (auto *S = dyn_cast<StoreInst>(U); S && S->getPointerOperand()->stripPointerCasts() == AI)
            work.push_back(S->getValueOperand());
        continue;
      }
    auto *A = dyn_cast<Argument>(V);
    if (!A || !A->getType()->isPointerTy()) continue;
    Function *F = A->getParent();
    unsigned i = A->getArgNo();
    F->addParamAttr(i, Attribute::getWithDereferenceableBytes(M.getContext(), 64));
    F->addParamAttr(i, Attribute::getWithAlignment(M.getContext(), Align(64)));
    F->addParamAttr(i, Attribute::ReadOnly);
    F->addParamAttr(i, Attribute::NoAlias);
    for (User *U : F->users())
      if (auto *CB = dyn_cast<CallBase>(U); CB && CB->getCalledFunction() == F && i < CB->arg_size())
        work.push_back(CB->getArgOperand(i));
  }
}

} // namespace

extern "C" {

// 1 when M calls an image built-in or initialises a sampler (pg_link_images has work to do).
int pg_images_used(LLVMModuleRef mref) {
  try {
    Module &M = *unwrap(mref);
    for (Function &F : M)
      if (F.isDeclaration() && !F.use_empty() &&
          (isImageBuiltin(F.getName()) || F.getName() == "__translate_sampler_initializer"))
        return 1;
    return 0;
  } catch (...) {
    return 0;
  }
}

// Defines __translate_sampler_initializer and links the image built-ins M calls from images.cl's
// bitcode (bc, len). Returns 0 ok, 1 failure (log says why).
int pg_link_images(LLVMModuleRef mref, const char *bc, size_t len, char **log) {
  try {
    Module &M = *unwrap(mref);
    defineSamplerInitializer(M);
    bool needed = false;
    for (Function &F : M)
      if (F.isDeclaration() && !F.use_empty() && isImageBuiltin(F.getName())) needed = true;
    if (!needed) return 0;
    Expected<std::unique_ptr<Module>> parsed =
        parseBitcodeFile(MemoryBufferRef(StringRef(bc, len), "images.cl"), M.getContext());
    if (!parsed) {
      setImagesLog(log, "error: the image built-ins do not load: " + toString(parsed.takeError()) + "\n");
      return 1;
    }
    std::unique_ptr<Module> L = std::move(*parsed);
    L->setTargetTriple(M.getTargetTriple());
    L->setDataLayout(M.getDataLayout());
    std::string err;
    if (!defineHelpers(*L, err)) {
      setImagesLog(log, "error: " + err + "\n");
      return 1;
    }
    dropConvergent(*L);
    std::vector<std::string> builtins;
    for (Function &F : *L)
      if (!F.isDeclaration() && !F.hasLocalLinkage()) builtins.push_back(F.getName().str());
    if (Linker::linkModules(M, std::move(L), Linker::LinkOnlyNeeded)) {
      setImagesLog(log, "error: linking the image built-ins failed\n");
      return 1;
    }
    std::vector<Function *> linked;
    for (const std::string &n : builtins)
      if (Function *F = M.getFunction(n); F && !F->isDeclaration()) {
        makeInternalInline(F);
        if (isImageBuiltin(F->getName())) linked.push_back(F);
      }
    for (Function *F : linked)
      for (User *U : F->users())
        if (auto *CB = dyn_cast<CallBase>(U)) CB->removeFnAttr(Attribute::Convergent);
    markImageArguments(M, linked);
    std::string verr;
    raw_string_ostream os(verr);
    if (verifyModule(M, &os)) {
      setImagesLog(log, "internal error: invalid IR after linking the image built-ins:\n" + os.str());
      return 1;
    }
    return 0;
  } catch (const std::exception &e) {
    setImagesLog(log, e.what());
    return 1;
  } catch (...) {
    setImagesLog(log, "internal error while linking the image built-ins");
    return 1;
  }
}

} // extern "C"
