// The C11-style atomics of OpenCL C 2.0/3.0 (atomic_load/store/exchange/compare_exchange,
// atomic_fetch_<op>, atomic_flag_*, atomic_init, atomic_work_item_fence, each with and without
// _explicit), which libclc 19 does not define for nvptx. Each declaration a program still has
// after libclc is linked gets a body here (link.cpp's finishLink), for whatever address space
// and type its mangled name and signature give:
//   - the access itself is a relaxed ("monotonic") LLVM atomic, which NVPTX emits as atom.* /
//     ld.volatile / st.volatile (relaxed at least at GPU scope, so at every narrower scope);
//   - a memory_order stronger than relaxed adds fences: one before the access for release,
//     acq_rel and seq_cst, one after it for acquire, acq_rel and seq_cst. The fence is PTX
//     membar.cta for work-item/work-group scope, membar.gl for device scope and membar.sys
//     beyond (membar is fence.sc: at least as strong as any order asks);
//   - the functions without _explicit are seq_cst at device scope, as OpenCL C specifies.
// The order and scope arguments are ordinary values: the functions are always-inline, so with
// the constants a kernel passes, the branches choosing the fences fold away.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include <optional>

#include "bridge.h"

using namespace llvm;

namespace {

// OpenCL C's memory_order and memory_scope values (clang's opencl-c-base.h).
constexpr unsigned ORDER_RELAXED = 0, ORDER_ACQUIRE = 2, ORDER_RELEASE = 3, ORDER_ACQ_REL = 4, ORDER_SEQ_CST = 5;
constexpr unsigned SCOPE_WORK_GROUP = 1, SCOPE_DEVICE = 2;

enum class Op { Init, Store, Load, Exchange, CmpXchg, Fetch, FlagTestAndSet, FlagClear, Fence };

struct Form {
  Op op;
  AtomicRMWInst::BinOp rmw = AtomicRMWInst::BAD_BINOP;
  bool isExplicit = false;
};

// The atomic function a mangled name calls, if any (the name without _Z<len>, then its args).
std::optional<Form> parseName(StringRef base, bool isSigned) {
  if (!base.consume_front("atomic_")) return std::nullopt;
  Form f{Op::Init};
  f.isExplicit = base.consume_back("_explicit");
  if (base == "init" && !f.isExplicit) f.op = Op::Init;
  else if (base == "store") f.op = Op::Store;
  else if (base == "load") f.op = Op::Load;
  else if (base == "exchange") f.op = Op::Exchange;
  else if (base == "compare_exchange_strong" || base == "compare_exchange_weak") f.op = Op::CmpXchg;
  else if (base == "flag_test_and_set") f.op = Op::FlagTestAndSet;
  else if (base == "flag_clear") f.op = Op::FlagClear;
  else if (base == "work_item_fence" && !f.isExplicit) f.op = Op::Fence;
  else if (base.consume_front("fetch_")) {
    f.op = Op::Fetch;
    if (base == "add") f.rmw = AtomicRMWInst::Add;
    else if (base == "sub") f.rmw = AtomicRMWInst::Sub;
    else if (base == "or") f.rmw = AtomicRMWInst::Or;
    else if (base == "xor") f.rmw = AtomicRMWInst::Xor;
    else if (base == "and") f.rmw = AtomicRMWInst::And;
    else if (base == "min") f.rmw = isSigned ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
    else if (base == "max") f.rmw = isSigned ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
    else return std::nullopt;
  } else return std::nullopt;
  return f;
}

// Where a fence goes: before an access (release, acq_rel, seq_cst), after it (acquire, acq_rel,
// seq_cst), or alone (atomic_work_item_fence: every order but relaxed).
enum class At { Before, After, Alone };

// A fence for `order` (a value) at `scope` (a value) if `at` wants one for that order: blocks
// that fold away once order and scope are constants. Leaves the builder at the join block.
void emitFence(IRBuilder<> &B, Value *order, Value *scope, At at) {
  Function *F = B.GetInsertBlock()->getParent();
  Module *M = F->getParent();
  LLVMContext &C = F->getContext();
  // Each comparison its own statement: the order of the instructions is then fixed (bridge
  // calls as sibling arguments are evaluated in an unspecified order: bridge_sequencing.rs).
  auto anyOf = [&](unsigned a, unsigned b, unsigned c) {
    Value *w = B.CreateICmpEQ(order, B.getInt32(a));
    Value *x = B.CreateICmpEQ(order, B.getInt32(b));
    Value *y = B.CreateICmpEQ(order, B.getInt32(c));
    Value *wx = B.CreateOr(w, x);
    return B.CreateOr(wx, y);
  };
  Value *want = at == At::Alone    ? B.CreateICmpNE(order, B.getInt32(ORDER_RELAXED))
                : at == At::Before ? anyOf(ORDER_RELEASE, ORDER_ACQ_REL, ORDER_SEQ_CST)
                                   : anyOf(ORDER_ACQUIRE, ORDER_ACQ_REL, ORDER_SEQ_CST);
  BasicBlock *fence = BasicBlock::Create(C, "fence", F);
  BasicBlock *cta = BasicBlock::Create(C, "fence.cta", F);
  BasicBlock *gl = BasicBlock::Create(C, "fence.gl", F);
  BasicBlock *sys = BasicBlock::Create(C, "fence.sys", F);
  BasicBlock *join = BasicBlock::Create(C, "fence.done", F);
  B.CreateCondBr(want, fence, join);
  B.SetInsertPoint(fence);
  Value *narrow = B.CreateICmpULE(scope, B.getInt32(SCOPE_WORK_GROUP));
  Value *device = B.CreateICmpEQ(scope, B.getInt32(SCOPE_DEVICE));
  BasicBlock *wide = BasicBlock::Create(C, "fence.wide", F);
  B.CreateCondBr(narrow, cta, wide);
  B.SetInsertPoint(wide);
  B.CreateCondBr(device, gl, sys);
  std::pair<BasicBlock *, Intrinsic::ID> kinds[] = {
      {cta, Intrinsic::nvvm_membar_cta}, {gl, Intrinsic::nvvm_membar_gl}, {sys, Intrinsic::nvvm_membar_sys}};
  for (auto &k : kinds) {
    B.SetInsertPoint(k.first);
    B.CreateCall(Intrinsic::getDeclaration(M, k.second));
    B.CreateBr(join);
  }
  B.SetInsertPoint(join);
}

}  // namespace

// Defines F if it is one of the C11 atomics (see above); false if it is not.
bool defineC11Atomic(Function &F) {
  StringRef name = F.getName();
  if (!name.consume_front("_Z")) return false;
  unsigned len = 0;
  if (name.consumeInteger(10, len) || name.size() < len) return false;
  StringRef base = name.substr(0, len);
  StringRef args = name.substr(len);
  // The atomic object's element type: _Atomic<i|l|c|s> signed, <j|m|h|t> unsigned, f/d floats.
  bool isSigned = true;
  size_t at = args.find("_Atomic");
  if (at != StringRef::npos && at + 7 < args.size()) isSigned = StringRef("ilcs").contains(args[at + 7]);
  std::optional<Form> form = parseName(base, isSigned);
  if (!form) return false;
  FunctionType *FT = F.getFunctionType();
  LLVMContext &C = F.getContext();
  Type *i32 = Type::getInt32Ty(C);
  Type *i1 = Type::getInt1Ty(C);
  Type *ret = FT->getReturnType();
  unsigned n = FT->getNumParams();
  // The value type and the number of arguments before the order/scope ones.
  Type *T = nullptr;
  unsigned fixed = 0, orders = 1;
  switch (form->op) {
    case Op::Init: case Op::Store: T = n >= 2 ? FT->getParamType(1) : nullptr; fixed = 2; break;
    case Op::Load: T = ret; fixed = 1; break;
    case Op::Exchange: case Op::Fetch: T = n >= 2 ? FT->getParamType(1) : nullptr; fixed = 2; break;
    case Op::CmpXchg: T = n >= 3 ? FT->getParamType(2) : nullptr; fixed = 3; orders = 2; break;
    case Op::FlagTestAndSet: case Op::FlagClear: T = i32; fixed = 1; break;
    case Op::Fence: T = i32; fixed = 1; break;
  }
  if (!T || !(T->isIntegerTy(32) || T->isIntegerTy(64) || T->isFloatTy() || T->isDoubleTy())) return false;
  if (form->op == Op::Fetch && !T->isIntegerTy()) return false;
  // Explicit forms take the order(s) and then, optionally, a scope (device scope without one).
  bool hasScope = form->op == Op::Fence || (form->isExplicit && n == fixed + orders + 1);
  unsigned want = fixed + (form->isExplicit || form->op == Op::Fence ? orders + hasScope : 0);
  if (n != want || (form->op != Op::Fence && !FT->getParamType(0)->isPointerTy())) return false;
  for (unsigned i = fixed; i < n; i++)
    if (FT->getParamType(i) != i32) return false;
  switch (form->op) {
    case Op::Load: case Op::Exchange: case Op::Fetch: if (ret != T) return false; break;
    case Op::CmpXchg: case Op::FlagTestAndSet: if (ret != i1) return false; break;
    default: if (!ret->isVoidTy()) return false;
  }

  F.setLinkage(GlobalValue::InternalLinkage);
  F.removeFnAttr(Attribute::NoInline);
  F.removeFnAttr(Attribute::OptimizeNone);
  F.addFnAttr(Attribute::AlwaysInline);
  IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
  // Order (the success order for compare-exchange, whose failure order may not be stronger) and
  // scope: seq_cst at device scope without _explicit, device scope when only orders are given.
  Value *order = B.getInt32(ORDER_SEQ_CST), *scope = B.getInt32(SCOPE_DEVICE);
  if (form->op == Op::Fence) {
    order = F.getArg(1);
    scope = F.getArg(2);
  } else if (form->isExplicit) {
    order = F.getArg(fixed);
    if (hasScope) scope = F.getArg(fixed + orders);
  }
  if (form->op == Op::Fence) {
    // A fence with relaxed order does nothing; work-item scope is a work-group one here.
    emitFence(B, order, scope, At::Alone);
    B.CreateRetVoid();
    return true;
  }
  if (form->op == Op::Init) {
    order = B.getInt32(ORDER_RELAXED);
  }
  // The integer the access is made with (floats are accessed as their bits).
  Type *I = T->isIntegerTy() ? T : Type::getIntNTy(C, T->getPrimitiveSizeInBits());
  Align al(I->getIntegerBitWidth() / 8);
  Value *p = F.getArg(0);
  auto toInt = [&](Value *v) { return v->getType() == I ? v : B.CreateBitCast(v, I); };
  auto fromInt = [&](Value *v) { return T == I ? v : B.CreateBitCast(v, T); };
  emitFence(B, order, scope, At::Before);
  Value *result = nullptr;
  switch (form->op) {
    case Op::Init:
    case Op::Store: {
      StoreInst *s = B.CreateAlignedStore(toInt(F.getArg(1)), p, al);
      s->setAtomic(AtomicOrdering::Monotonic);
      break;
    }
    case Op::FlagClear: {
      StoreInst *s = B.CreateAlignedStore(B.getInt32(0), p, al);
      s->setAtomic(AtomicOrdering::Monotonic);
      break;
    }
    case Op::Load: {
      LoadInst *l = B.CreateAlignedLoad(I, p, al);
      l->setAtomic(AtomicOrdering::Monotonic);
      result = fromInt(l);
      break;
    }
    case Op::Exchange:
      result = fromInt(B.CreateAtomicRMW(AtomicRMWInst::Xchg, p, toInt(F.getArg(1)), al, AtomicOrdering::Monotonic));
      break;
    case Op::Fetch:
      result = B.CreateAtomicRMW(form->rmw, p, F.getArg(1), al, AtomicOrdering::Monotonic);
      break;
    case Op::FlagTestAndSet: {
      Value *old = B.CreateAtomicRMW(AtomicRMWInst::Xchg, p, B.getInt32(1), al, AtomicOrdering::Monotonic);
      result = B.CreateICmpNE(old, B.getInt32(0));
      break;
    }
    case Op::CmpXchg: {
      // expected is a private pointer: read it, and write the value found there on failure.
      Value *expectedPtr = F.getArg(1);
      Value *expected = B.CreateAlignedLoad(I, expectedPtr, al);
      Value *pair = B.CreateAtomicCmpXchg(p, expected, toInt(F.getArg(2)), al, AtomicOrdering::Monotonic,
                                          AtomicOrdering::Monotonic);
      Value *old = B.CreateExtractValue(pair, 0);
      Value *ok = B.CreateExtractValue(pair, 1);
      BasicBlock *fail = BasicBlock::Create(C, "cmpxchg.fail", &F);
      BasicBlock *done = BasicBlock::Create(C, "cmpxchg.done", &F);
      B.CreateCondBr(ok, done, fail);
      B.SetInsertPoint(fail);
      B.CreateAlignedStore(old, expectedPtr, al);
      B.CreateBr(done);
      B.SetInsertPoint(done);
      result = ok;
      break;
    }
    case Op::Fence:
      break;
  }
  emitFence(B, order, scope, At::After);
  if (result) B.CreateRet(result);
  else B.CreateRetVoid();
  return true;
}
