// Results libclc gets wrong, fixed where the program calls the function (split from
// bridge.cpp).
#include "bridge.h"

using namespace llvm;

// Results libclc gets wrong, fixed where the program calls the function (scalar or vector):
// - sinpi(n), atanpi(+-0): a zero takes x's sign; cospi(n + 0.5) is +0; tanpi(n) is a zero
//   of x's sign for even n and of the opposite sign for odd n (the CTS's math_edge_cases);
// - acospi(NaN) is NaN (libclc answers 0.5 for some NaNs).
void fixMathCalls(Module &M) {
  struct Fix { const char *prefix; int kind; };
  const Fix fixes[] = {{"_Z5sinpi", 0}, {"_Z6atanpi", 0}, {"_Z5cospi", 1}, {"_Z5tanpi", 2}, {"_Z6acospi", 3}};
  std::vector<CallInst *> calls;
  std::vector<int> kinds;
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 1) continue;
    Type *T = F.getReturnType();
    if (!T->isFPOrFPVectorTy() || F.getArg(0)->getType() != T) continue;
    for (const Fix &f : fixes)
      if (F.getName().starts_with(f.prefix) && F.getName().size() > strlen(f.prefix) &&
          (F.getName()[strlen(f.prefix)] == 'f' || F.getName()[strlen(f.prefix)] == 'd' ||
           F.getName()[strlen(f.prefix)] == 'D'))
        for (User *U : F.users())
          if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F) {
            calls.push_back(CI);
            kinds.push_back(f.kind);
          }
  }
  for (size_t i = 0; i < calls.size(); i++) {
    CallInst *CI = calls[i];
    std::vector<Use *> uses;
    for (Use &U : CI->uses()) uses.push_back(&U);
    IRBuilder<> B(CI->getNextNode());
    Value *x = CI->getArgOperand(0), *r = CI;
    Type *T = CI->getType();
    Value *zero = ConstantFP::get(T, 0.0);
    Value *isZero = B.CreateFCmpOEQ(r, zero);
    Value *fixed = nullptr;
    switch (kinds[i]) {
    case 0: // a zero with x's sign
      fixed = B.CreateSelect(isZero, B.CreateCopySign(zero, x), r);
      break;
    case 1: // +0
      fixed = B.CreateSelect(isZero, zero, r);
      break;
    case 2: { // x's sign, flipped for odd integers (x/2 not an integer)
      Value *h = B.CreateFMul(x, ConstantFP::get(T, 0.5));
      Value *odd = B.CreateFCmpUNE(h, B.CreateUnaryIntrinsic(Intrinsic::floor, h));
      Value *signOf = B.CreateSelect(odd, B.CreateFNeg(x), x);
      fixed = B.CreateSelect(isZero, B.CreateCopySign(zero, signOf), r);
      break;
    }
    default: // NaN in, NaN out
      fixed = B.CreateSelect(B.CreateFCmpUNO(x, x), x, r);
      break;
    }
    for (Use *U : uses) U->set(fixed);
  }
}

namespace {

// Float <-> double, lane by lane, as PTX cvt in inline assembly. LLVM 19's NVPTX folds an fpext of a
// loaded float vector into one extending vector load (`ld.global.v2.f32 {%fd1, %fd2}`), which ptxas
// rejects ("Arguments mismatch for instruction 'ld'": the CTS's fmod/remainder/remquo/ldexp/rootn
// float8 and float16 kernels); the assembly keeps the load and the conversion apart.
Value *laneCvt(IRBuilder<> &B, Value *v, Type *to) {
  Type *from = v->getType();
  bool up = from->getScalarType()->isFloatTy();
  Type *fe = from->getScalarType(), *te = to->getScalarType();
  InlineAsm *cvt = InlineAsm::get(FunctionType::get(te, {fe}, false),
                                  up ? "cvt.f64.f32 $0, $1;" : "cvt.rn.f32.f64 $0, $1;", up ? "=d,f" : "=f,d", false);
  auto *VT = dyn_cast<FixedVectorType>(from);
  if (!VT) return B.CreateCall(cvt, {v});
  Value *r = PoisonValue::get(to);
  for (unsigned i = 0; i < VT->getNumElements(); i++)
    r = B.CreateInsertElement(r, B.CreateCall(cvt, {B.CreateExtractElement(v, (uint64_t)i)}), (uint64_t)i);
  return r;
}

} // namespace

// (float exp, exp10 and erfc come from src/mathlib.cl, which gets subnormal results right itself.)
// libclc's nvptx float fmod, remainder, remquo, ldexp, rootn, exp, exp2 and exp10 flush subnormal
// results and arguments to zero (they were built with fp32 subnormals off), while cudacl reports
// CL_FP_DENORM (the CTS's math_brute_force fmod, remainder, remquo, ldexp, rootn, exp, exp2 in
// fp32; erfc's float results near 2^-126 too; tgamma's float results were up to 38 ulp off, as
// exp(lgamma)). They are computed in double and rounded once to
// float: exact for fmod, remainder, remquo
// and ldexp, within half an ulp of libclc's double result for rootn and the exponentials. The
// exponentials take that path only where a result may be subnormal (a branch on any lane, then a
// per-lane select).
void fixFloatSubnormalCalls(Module &M) {
  LLVMContext &C = M.getContext();
  struct Fn { const char *prefix; float below; };  // below: scalar exponentials only
  const Fn fns[] = {{"_Z4fmod", 0}, {"_Z9remainder", 0}, {"_Z6remquo", 0}, {"_Z5ldexp", 0}, {"_Z5rootn", 0},
                    {"_Z6tgamma", 0}, {"_Z4exp2", -125.5f}};
  std::vector<std::pair<CallInst *, const Fn *>> work;
  for (Function &F : M) {
    if (!F.isDeclaration() || !F.getReturnType()->getScalarType()->isFloatTy()) continue;
    for (const Fn &fn : fns) {
      StringRef n = F.getName();
      if (!n.starts_with(fn.prefix)) continue;
      StringRef rest = n.substr(strlen(fn.prefix));
      // The argument types only: float / vector-of-float codes, and int for ldexp.
      if (rest.empty() || (rest[0] != 'f' && rest[0] != 'D')) continue;
      for (User *U : F.users())
        if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F) work.push_back({CI, &fn});
    }
  }
  for (auto [CI, fn] : work) {
    Function *F = CI->getCalledFunction();
    std::string dname = F->getName().str();
    for (size_t i = strlen(fn->prefix); i < dname.size(); i++)
      if (dname[i] == 'f') dname[i] = 'd';
    auto toDouble = [&](Type *T) -> Type * {
      if (T->isFloatTy()) return Type::getDoubleTy(C);
      if (auto *VT = dyn_cast<FixedVectorType>(T); VT && VT->getElementType()->isFloatTy())
        return FixedVectorType::get(Type::getDoubleTy(C), VT->getNumElements());
      return T;
    };
    std::vector<Type *> params;
    for (Type *T : F->getFunctionType()->params()) params.push_back(toDouble(T));
    FunctionCallee D = M.getOrInsertFunction(dname, FunctionType::get(toDouble(F->getReturnType()), params, false));
    auto viaDouble = [&](IRBuilder<> &B) -> Value * {
      std::vector<Value *> args;
      for (Value *a : CI->args())
        args.push_back(a->getType()->getScalarType()->isFloatTy() ? laneCvt(B, a, toDouble(a->getType())) : a);
      return laneCvt(B, B.CreateCall(D, args), CI->getType());
    };
    if (fn->below == 0) {
      IRBuilder<> B(CI);
      Value *r = viaDouble(B);
      CI->replaceAllUsesWith(r);
      CI->eraseFromParent();
      continue;
    }
    // r = exp_f(x); if (any lane x < below) r = select(x < below, (float)exp_d((double)x), r)
    std::vector<Use *> uses;
    for (Use &U : CI->uses()) uses.push_back(&U);
    IRBuilder<> B(CI->getNextNode());
    Value *x = CI->getArgOperand(0);
    Value *mask = B.CreateFCmpOLT(x, ConstantFP::get(x->getType(), fn->below));
    Value *any = x->getType()->isVectorTy() ? B.CreateOrReduce(mask) : mask;
    BasicBlock *head = CI->getParent();
    Function *Fn = head->getParent();
    BasicBlock *tail = head->splitBasicBlock(cast<Instruction>(any)->getNextNode()->getIterator(), "exp.tail");
    BasicBlock *slow = BasicBlock::Create(C, "exp.subnormal", Fn, tail);
    head->getTerminator()->eraseFromParent();
    IRBuilder<>(head).CreateCondBr(any, slow, tail);
    IRBuilder<> SB(slow);
    Value *rs = SB.CreateSelect(mask, viaDouble(SB), CI);
    SB.CreateBr(tail);
    IRBuilder<> TB(tail, tail->begin());
    PHINode *phi = TB.CreatePHI(CI->getType(), 2);
    phi->addIncoming(CI, head);
    phi->addIncoming(rs, slow);
    for (Use *U : uses) U->set(phi);
  }
}

// ldexp(double x, int n): libclc's answers NaN inputs with inf or 0 and large n with a wrapped
// exponent (the CTS's ldexp fp64: ldexp(-0x1.68ffffffffeaep+988, 2147482589) gave -0). Defined
// here, lane by lane: x scaled by at most two steps of 2^1023 (or 2^-969) and then by 2^n with n
// clamped, so the only rounding is the last multiplication's (a subnormal result rounds once).
// The float forms come here too, through fixFloatSubnormalCalls.
void defineLdexpDouble(Module &M) {
  LLVMContext &C = M.getContext();
  Type *dT = Type::getDoubleTy(C), *iT = Type::getInt32Ty(C);
  Function *one = nullptr;
  auto scalar = [&]() {
    if (one) return one;
    one = Function::Create(FunctionType::get(dT, {dT, iT}, false), GlobalValue::InternalLinkage,
                           "__cudacl_ldexp_f64", &M);
    one->addFnAttr(Attribute::AlwaysInline);
    IRBuilder<> B(BasicBlock::Create(C, "entry", one));
    Value *y = one->getArg(0), *n = one->getArg(1);
    auto step = [&](bool up) {
      Value *c = up ? B.CreateICmpSGT(n, B.getInt32(1023)) : B.CreateICmpSLT(n, B.getInt32(-1022));
      y = B.CreateSelect(c, B.CreateFMul(y, ConstantFP::get(dT, up ? 0x1p1023 : 0x1p-969)), y);
      n = B.CreateSelect(c, B.CreateAdd(n, B.getInt32(up ? -1023 : 969)), n);
    };
    step(true);
    step(true);
    step(false);
    step(false);
    n = B.CreateSelect(B.CreateICmpSGT(n, B.getInt32(1023)), B.getInt32(1023), n);
    n = B.CreateSelect(B.CreateICmpSLT(n, B.getInt32(-1022)), B.getInt32(-1022), n);
    Value *bits = B.CreateShl(B.CreateZExt(B.CreateAdd(n, B.getInt32(1023)), B.getInt64Ty()), 52);
    B.CreateRet(B.CreateFMul(y, B.CreateBitCast(bits, dT)));
    return one;
  };
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 2 || !F.getName().starts_with("_Z5ldexp")) continue;
    Type *RT = F.getReturnType(), *NT = F.getArg(1)->getType();
    if (!RT->getScalarType()->isDoubleTy() || F.getArg(0)->getType() != RT || !NT->getScalarType()->isIntegerTy(32))
      continue;
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(Attribute::OptimizeNone);
    Function *S = scalar();
    IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
    auto *VT = dyn_cast<FixedVectorType>(RT);
    if (!VT) {
      B.CreateRet(B.CreateCall(S, {F.getArg(0), F.getArg(1)}));
      continue;
    }
    Value *r = PoisonValue::get(RT);
    for (unsigned i = 0; i < VT->getNumElements(); i++) {
      Value *n = NT->isVectorTy() ? B.CreateExtractElement(F.getArg(1), (uint64_t)i) : F.getArg(1);
      r = B.CreateInsertElement(r, B.CreateCall(S, {B.CreateExtractElement(F.getArg(0), (uint64_t)i), n}), (uint64_t)i);
    }
    B.CreateRet(r);
  }
}

// More results libclc gets wrong, fixed where the program calls the function:
// - frexp(double NaN or infinity) returns x with exponent 0 (libclc gave a finite mantissa and
//   -1023 for NaN: the CTS's frexp fp64);
// - tgamma(x) far below zero (x < -64 in float, x < -256 in double, where |tgamma| is below the
//   smallest subnormal) is NaN at integers and otherwise a zero of tgamma's sign there, negative
//   when floor(-x) is even (libclc answered inf: the CTS's tgamma at -0x1.0002p+12).
void fixFrexpTgammaCalls(Module &M) {
  std::vector<CallInst *> frexps, tgammas;
  for (Function &F : M) {
    if (!F.isDeclaration()) continue;
    Type *T = F.getReturnType();
    StringRef n = F.getName();
    bool isFrexp = n.starts_with("_Z5frexp") && F.arg_size() == 2 && T->getScalarType()->isDoubleTy() &&
                   F.getArg(0)->getType() == T && F.getArg(1)->getType()->isPointerTy();
    bool isTgamma = n.starts_with("_Z6tgamma") && F.arg_size() == 1 && T->isFPOrFPVectorTy() &&
                    F.getArg(0)->getType() == T && !T->getScalarType()->isHalfTy();
    if (!isFrexp && !isTgamma) continue;
    for (User *U : F.users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F)
        (isFrexp ? frexps : tgammas).push_back(CI);
  }
  for (CallInst *CI : frexps) {
    std::vector<Use *> uses;
    for (Use &U : CI->uses()) uses.push_back(&U);
    IRBuilder<> B(CI->getNextNode());
    Value *x = CI->getArgOperand(0), *ptr = CI->getArgOperand(1);
    Type *T = CI->getType();
    Value *special = B.CreateFCmpUEQ(B.CreateUnaryIntrinsic(Intrinsic::fabs, x), ConstantFP::getInfinity(T));
    Value *r = B.CreateSelect(special, x, CI);
    Type *ET = B.getInt32Ty();
    if (auto *VT = dyn_cast<FixedVectorType>(T)) ET = FixedVectorType::get(ET, VT->getNumElements());
    Value *e = B.CreateAlignedLoad(ET, ptr, Align(4));
    B.CreateAlignedStore(B.CreateSelect(special, Constant::getNullValue(ET), e), ptr, Align(4));
    for (Use *U : uses) U->set(r);
  }
  for (CallInst *CI : tgammas) {
    std::vector<Use *> uses;
    for (Use &U : CI->uses()) uses.push_back(&U);
    IRBuilder<> B(CI->getNextNode());
    Value *x = CI->getArgOperand(0);
    Type *T = CI->getType();
    bool dbl = T->getScalarType()->isDoubleTy();
    Value *far = B.CreateFCmpOLT(x, ConstantFP::get(T, dbl ? -256.0 : -64.0));
    Value *isInt = B.CreateFCmpOEQ(x, B.CreateUnaryIntrinsic(Intrinsic::floor, x));
    Value *k = B.CreateUnaryIntrinsic(Intrinsic::floor, B.CreateFNeg(x));
    Value *h = B.CreateFMul(k, ConstantFP::get(T, 0.5));
    Value *even = B.CreateFCmpOEQ(h, B.CreateUnaryIntrinsic(Intrinsic::floor, h));
    Value *zero = B.CreateSelect(even, ConstantFP::getNegativeZero(T), ConstantFP::get(T, 0.0));
    Value *val = B.CreateSelect(isInt, ConstantFP::getNaN(T), zero);
    Value *r = B.CreateSelect(far, val, CI);
    for (Use *U : uses) U->set(r);
  }
}

// tgamma(double): libclc computes exp(lgamma(|x|)) (with a reflection below zero), whose error
// grows with |lgamma|: 16 to 19 ulp at -8.19 and -3.1e-5 in the CTS (limit 16), 119 ulp just below
// -40 (near the poles the reflection cancels), up to about 90 at |x| near 40 in a host model. Here
// every finite x in [-256, 172] away from the poles is moved into [1, 2) by the recurrence,
// y = x + k, and tgamma(x) = exp(lgamma(y)) * D (x >= 1) or exp(lgamma(y)) / D (x < 1), where D
// collects the factors passed (x, x+1, ..., y-1 going up; y, ..., x-1 going down). The factors are
// exact (an integer added to x towards zero loses nothing), and D is kept as a double-double (the
// low part from fma), scaled by 2^-600 whenever it passes 2^600 (Gamma(171.6) overflows, and
// below -171 D does), so the only roundings are exp(lgamma(y)) (lgamma(y) lies in [-0.13, 0]),
// the final product or corrected quotient, and the final scaling (once, into the subnormals or to
// infinity). The host model of exactly these operations (glibc's exp and lgamma, tgammal as the
// reference; 5.2 million points: 60 offsets either side of every negative integer to -186, the
// CTS's DoubleFromUInt32 lattice, random points in [-190, 175]) stays within 1.8 ulp. Special
// cases: tgamma(+-0) = +-inf (1/x), |x| < 2^-54 gives 1/x - Euler's gamma, x > 172 +inf, NaN, -inf
// and the negative integers NaN; below -256 fixFrexpTgammaCalls gives the signed zero. Every
// double tgamma call, scalar or per lane (float tgamma arrives here through
// fixFloatSubnormalCalls and is rounded to float once), goes through the helper.
void fixTgammaDouble(Module &M) {
  LLVMContext &C = M.getContext();
  Type *dT = Type::getDoubleTy(C);
  std::vector<CallInst *> calls;
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 1 || !F.getName().starts_with("_Z6tgamma")) continue;
    Type *T = F.getReturnType();
    if (!T->getScalarType()->isDoubleTy() || F.getArg(0)->getType() != T) continue;
    for (User *U : F.users())
      if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F) calls.push_back(CI);
  }
  if (calls.empty()) return;
  FunctionCallee lgam = M.getOrInsertFunction("_Z6lgammad", dT, dT);
  FunctionCallee ex = M.getOrInsertFunction("_Z3expd", dT, dT);
  Function *H = Function::Create(FunctionType::get(dT, {dT}, false), GlobalValue::InternalLinkage,
                                 "__cudacl_tgamma_f64", &M);
  Value *x = H->getArg(0);
  BasicBlock *entry = BasicBlock::Create(C, "entry", H), *simple = BasicBlock::Create(C, "simple", H),
             *up = BasicBlock::Create(C, "up", H), *upBody = BasicBlock::Create(C, "up.body", H),
             *down = BasicBlock::Create(C, "down", H), *downBody = BasicBlock::Create(C, "down.body", H),
             *calc = BasicBlock::Create(C, "calc", H), *scale = BasicBlock::Create(C, "scale", H),
             *scaleBody = BasicBlock::Create(C, "scale.body", H), *exit = BasicBlock::Create(C, "exit", H);
  IRBuilder<> B(entry);
  // One IRBuilder call per argument list (tests/bridge_sequencing.rs): C++ leaves the order of
  // sibling arguments unspecified, and the PTX must be byte-identical on x86-64 and aarch64.
  Type *i32 = B.getInt32Ty();
  auto cf = [&](double v) { return ConstantFP::get(dT, v); };
  Value *one = cf(1.0), *two = cf(2.0), *big = cf(0x1p600), *small = cf(0x1p-600);
  Value *ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, x);
  Value *nonPositive = B.CreateFCmpOLE(x, cf(0.0));
  Value *fl = B.CreateUnaryIntrinsic(Intrinsic::floor, x);
  Value *integral = B.CreateFCmpOEQ(x, fl);
  Value *negInt = B.CreateAnd(nonPositive, integral);
  Value *aboveLow = B.CreateFCmpOGE(x, cf(-256.0));
  Value *belowHigh = B.CreateFCmpOLE(x, cf(172.0));
  Value *inRange = B.CreateAnd(aboveLow, belowHigh);
  Value *notTiny = B.CreateFCmpOGE(ax, cf(0x1p-54));
  Value *notPole = B.CreateNot(negInt);
  Value *regular = B.CreateAnd(notTiny, notPole);
  Value *general = B.CreateAnd(inRange, regular);
  B.CreateCondBr(general, up, simple);
  // NaN stays; +-0 and tiny x: 1/x - gamma (+-inf at zero); x > 172: +inf; -inf and the negative
  // integers: NaN.
  B.SetInsertPoint(simple);
  Value *s0 = ConstantFP::getNaN(dT);
  Value *over172 = B.CreateFCmpOGT(x, cf(172.0));
  s0 = B.CreateSelect(over172, ConstantFP::getInfinity(dT), s0);
  Value *tiny = B.CreateFCmpOLT(ax, cf(0x1p-54));
  Value *recip = B.CreateFDiv(one, x);
  Value *nearZero = B.CreateFSub(recip, cf(0.57721566490153286));
  s0 = B.CreateSelect(tiny, nearZero, s0);
  Value *isNan = B.CreateFCmpUNO(x, x);
  s0 = B.CreateSelect(isNan, x, s0);
  B.CreateBr(exit);
  // (h, l) * f as a double-double, renormalised, then scaled by 2^-600 (counted) past 2^600.
  auto ddmul = [&](Value *h, Value *l, Value *f, Value *n, Value *&oh, Value *&ol, Value *&on) {
    Value *p = B.CreateFMul(h, f);
    Value *negP = B.CreateFNeg(p);
    Value *err = B.CreateIntrinsic(Intrinsic::fma, {dT}, {h, f, negP});
    Value *lf = B.CreateFMul(l, f);
    Value *e = B.CreateFAdd(err, lf);
    Value *sh = B.CreateFAdd(p, e);
    Value *back = B.CreateFSub(sh, p);
    Value *sl = B.CreateFSub(e, back);
    Value *mag = B.CreateUnaryIntrinsic(Intrinsic::fabs, sh);
    Value *over = B.CreateFCmpOGT(mag, big);
    Value *shs = B.CreateFMul(sh, small);
    Value *sls = B.CreateFMul(sl, small);
    oh = B.CreateSelect(over, shs, sh);
    ol = B.CreateSelect(over, sls, sl);
    Value *inc = B.CreateZExt(over, i32);
    on = B.CreateAdd(n, inc);
  };
  // up: while (y < 1) { D *= y; y += 1; }
  B.SetInsertPoint(up);
  PHINode *y = B.CreatePHI(dT, 2);
  PHINode *ph = B.CreatePHI(dT, 2);
  PHINode *pl = B.CreatePHI(dT, 2);
  PHINode *pn = B.CreatePHI(i32, 2);
  Value *yBelow = B.CreateFCmpOLT(y, one);
  B.CreateCondBr(yBelow, upBody, down);
  B.SetInsertPoint(upBody);
  Value *ph1, *pl1, *pn1;
  ddmul(ph, pl, y, pn, ph1, pl1, pn1);
  Value *y1 = B.CreateFAdd(y, one);
  B.CreateBr(up);
  y->addIncoming(x, entry);
  y->addIncoming(y1, upBody);
  ph->addIncoming(one, entry);
  ph->addIncoming(ph1, upBody);
  pl->addIncoming(cf(0.0), entry);
  pl->addIncoming(pl1, upBody);
  pn->addIncoming(B.getInt32(0), entry);
  pn->addIncoming(pn1, upBody);
  // down: while (y >= 2) { y -= 1; D *= y; }
  B.SetInsertPoint(down);
  PHINode *z = B.CreatePHI(dT, 2);
  PHINode *qh = B.CreatePHI(dT, 2);
  PHINode *ql = B.CreatePHI(dT, 2);
  PHINode *qn = B.CreatePHI(i32, 2);
  Value *zAbove = B.CreateFCmpOGE(z, two);
  B.CreateCondBr(zAbove, downBody, calc);
  B.SetInsertPoint(downBody);
  Value *z1 = B.CreateFSub(z, one);
  Value *qh1, *ql1, *qn1;
  ddmul(qh, ql, z1, qn, qh1, ql1, qn1);
  B.CreateBr(down);
  z->addIncoming(y, up);
  z->addIncoming(z1, downBody);
  qh->addIncoming(ph, up);
  qh->addIncoming(qh1, downBody);
  ql->addIncoming(pl, up);
  ql->addIncoming(ql1, downBody);
  qn->addIncoming(pn, up);
  qn->addIncoming(qn1, downBody);
  // calc: g = Gamma(y), y in [1, 2); g / D (quotient corrected by its exact remainder) or g * D.
  B.SetInsertPoint(calc);
  Value *lg = B.CreateCall(lgam, {z});
  Value *g = B.CreateCall(ex, {lg});
  Value *below = B.CreateFCmpOLT(x, one);
  Value *q = B.CreateFDiv(g, qh);
  Value *negQ = B.CreateFNeg(q);
  Value *rem0 = B.CreateIntrinsic(Intrinsic::fma, {dT}, {negQ, qh, g});
  Value *qlow = B.CreateFMul(q, ql);
  Value *rem = B.CreateFSub(rem0, qlow);
  Value *corr = B.CreateFDiv(rem, qh);
  Value *quot = B.CreateFAdd(q, corr);
  Value *gl = B.CreateFMul(g, ql);
  Value *prod = B.CreateIntrinsic(Intrinsic::fma, {dT}, {g, qh, gl});
  Value *r1 = B.CreateSelect(below, quot, prod);
  Value *unit = B.CreateSelect(below, small, big);
  B.CreateBr(scale);
  // scale: undo D's scalings (2^-600 each for a divisor, 2^600 for a factor).
  B.SetInsertPoint(scale);
  PHINode *rr = B.CreatePHI(dT, 2);
  PHINode *rn = B.CreatePHI(i32, 2);
  Value *pending = B.CreateICmpSGT(rn, B.getInt32(0));
  B.CreateCondBr(pending, scaleBody, exit);
  B.SetInsertPoint(scaleBody);
  Value *rr1 = B.CreateFMul(rr, unit);
  Value *rn1 = B.CreateSub(rn, B.getInt32(1));
  B.CreateBr(scale);
  rr->addIncoming(r1, calc);
  rr->addIncoming(rr1, scaleBody);
  rn->addIncoming(qn, calc);
  rn->addIncoming(rn1, scaleBody);
  B.SetInsertPoint(exit);
  PHINode *r = B.CreatePHI(dT, 2);
  r->addIncoming(s0, simple);
  r->addIncoming(rr, scale);
  B.CreateRet(r);
  for (CallInst *CI : calls) {
    IRBuilder<> CB(CI);
    Value *a = CI->getArgOperand(0), *res;
    if (auto *VT = dyn_cast<FixedVectorType>(CI->getType())) {
      res = PoisonValue::get(VT);
      for (unsigned i = 0; i < VT->getNumElements(); i++)
        res = CB.CreateInsertElement(res, CB.CreateCall(H, {CB.CreateExtractElement(a, (uint64_t)i)}), (uint64_t)i);
    } else {
      res = CB.CreateCall(H, {a});
    }
    CI->replaceAllUsesWith(res);
    CI->eraseFromParent();
  }
}

// vstore_half*_rtp / _rtn and vstorea_half*_rtp / _rtn of float and double data: libclc rounds
// results below half's normal range toward zero (the CTS's half vstore(a)_half_rtp/rtn, float
// data, then double data); PTX's cvt.rp/rm round as asked, subnormals included.
void defineVstoreHalfDirected(Module &M) {
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 3 || !F.getReturnType()->isVoidTy()) continue;
    StringRef n = F.getName();
    size_t at = n.find("vstore");
    if (!n.starts_with("_Z") || at == StringRef::npos) continue;
    StringRef rest = n.substr(at + 6);  // "a_half3_rtp..." or "_half_rtn..."
    bool aligned = rest.consume_front("a");
    if (!rest.consume_front("_half")) continue;
    unsigned lanes = 0;
    while (!rest.empty() && isdigit((unsigned char)rest[0])) lanes = lanes * 10 + (rest[0] - '0'), rest = rest.drop_front();
    const char *mode = rest.starts_with("_rtp") ? "rp" : rest.starts_with("_rtn") ? "rm" : nullptr;
    if (!mode) continue;
    Type *DT = F.getArg(0)->getType();
    bool dbl = DT->getScalarType()->isDoubleTy();
    if (!(DT->getScalarType()->isFloatTy() || dbl) || !F.getArg(1)->getType()->isIntegerTy(64) ||
        !F.getArg(2)->getType()->isPointerTy())
      continue;
    unsigned n_el = isa<FixedVectorType>(DT) ? cast<FixedVectorType>(DT)->getNumElements() : 1;
    if ((lanes ? lanes : 1) != n_el) continue;
    unsigned stride = aligned && n_el == 3 ? 4 : n_el;
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(Attribute::OptimizeNone);
    IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
    Type *i16 = B.getInt16Ty();
    // Double data: rounded to float in the same direction first. Every half is a float, so the
    // smallest half >= x equals the smallest half >= (the smallest float >= x): no double rounding.
    std::string text = dbl ? std::string("{ .reg .f32 t; cvt.") + mode + ".f32.f64 t, $1; cvt." + mode +
                                 ".f16.f32 $0, t; }"
                           : std::string("cvt.") + mode + ".f16.f32 $0, $1;";
    InlineAsm *cvt = InlineAsm::get(FunctionType::get(i16, {DT->getScalarType()}, false), text,
                                    dbl ? "=h,d" : "=h,f", false);
    Value *base = B.CreateMul(F.getArg(1), B.getInt64(stride));
    for (unsigned i = 0; i < n_el; i++) {
      Value *e = n_el == 1 && !isa<FixedVectorType>(DT) ? F.getArg(0) : B.CreateExtractElement(F.getArg(0), (uint64_t)i);
      Value *p = B.CreateGEP(i16, F.getArg(2), B.CreateAdd(base, B.getInt64(i)));
      B.CreateAlignedStore(B.CreateCall(cvt, {e}), p, Align(2));
    }
    B.CreateRetVoid();
  }
}

// convert_float*_rt[nzp](int/uint/long/ulong/double) and convert_double*_rt[nzp](long/ulong):
// libclc's emulated rounding is wrong near powers of two (the CTS's conversions); the PTX
// conversion instructions round as asked.
void defineRoundingConversions(Module &M) {
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 1) continue;
    StringRef n = F.getName();
    size_t at = n.find("convert_");
    if (!n.starts_with("_Z") || at == StringRef::npos) continue;
    StringRef rest = n.substr(at + 8);
    bool toFloat = rest.starts_with("float"), toDouble = rest.starts_with("double");
    if (!toFloat && !toDouble) continue;
    size_t r = rest.find("_rt");
    if (r == StringRef::npos || r + 4 > rest.size()) continue;
    char mode = rest[r + 3];
    char src = n.back();
    Type *RT = F.getReturnType(), *AT = F.getArg(0)->getType();
    Type *RE = RT->getScalarType(), *AE = AT->getScalarType();
    unsigned lanes = isa<FixedVectorType>(RT) ? cast<FixedVectorType>(RT)->getNumElements() : 1;
    unsigned alanes = isa<FixedVectorType>(AT) ? cast<FixedVectorType>(AT)->getNumElements() : 1;
    if (lanes != alanes || !(toFloat ? RE->isFloatTy() : RE->isDoubleTy())) continue;
    int m = mode == 'n' ? 0 : mode == 'z' ? 1 : mode == 'p' ? 2 : mode == 'e' ? 3 : -1;
    if (m < 0) continue;
    // The PTX conversion, as inline assembly: LLVM's InstCombine turns llvm.nvvm.*2f.rz into a
    // plain sitofp/uitofp, which rounds to nearest.
    const char *from = nullptr, *cons = nullptr;
    if (src == 'i' && AE->isIntegerTy(32)) from = "s32", cons = "r";
    else if (src == 'j' && AE->isIntegerTy(32)) from = "u32", cons = "r";
    else if (src == 'l' && AE->isIntegerTy(64)) from = "s64", cons = "l";
    else if (src == 'm' && AE->isIntegerTy(64)) from = "u64", cons = "l";
    else if (src == 'd' && AE->isDoubleTy() && toFloat) from = "f64", cons = "d";
    if (!from || (toDouble && AE->isIntegerTy(32))) continue;
    const char *rnd[4] = {"rm", "rz", "rp", "rn"};
    std::string text = std::string("cvt.") + rnd[m] + (toFloat ? ".f32." : ".f64.") + from + " $0, $1;";
    std::string constraints = std::string(toFloat ? "=f," : "=d,") + cons;
    InlineAsm *cvt = InlineAsm::get(FunctionType::get(RE, {AE}, false), text, constraints, false);
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(Attribute::OptimizeNone);
    IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
    Value *x = F.getArg(0);
    auto one = [&](Value *e) { return B.CreateCall(cvt, {e}); };
    if (lanes == 1 && !isa<FixedVectorType>(RT)) {
      B.CreateRet(one(x));
    } else {
      Value *v = PoisonValue::get(RT);
      for (unsigned i = 0; i < lanes; i++) v = B.CreateInsertElement(v, one(B.CreateExtractElement(x, (uint64_t)i)), (uint64_t)i);
      B.CreateRet(v);
    }
  }
}

// smoothstep(edge0, edge1, x) with scalar edges and a vector x: libclc defines the double
// forms under a float-edged name (_Z10smoothstepffDv2_d), so smoothstep(double, double,
// double2) was an undefined function.
void defineSmoothstep(Module &M) {
  LLVMContext &C = M.getContext();
  for (Function &F : M) {
    if (!F.isDeclaration() || F.arg_size() != 3 || !F.getName().starts_with("_Z10smoothstep")) continue;
    Type *RT = F.getReturnType();
    auto *VT = dyn_cast<FixedVectorType>(RT);
    if (!VT || !VT->getElementType()->isFloatingPointTy()) continue;
    Type *E = VT->getElementType();
    if (F.getArg(0)->getType() != E || F.getArg(1)->getType() != E || F.getArg(2)->getType() != RT) continue;
    F.setLinkage(GlobalValue::InternalLinkage);
    F.removeFnAttr(Attribute::NoInline);
    F.removeFnAttr(Attribute::OptimizeNone);
    IRBuilder<> B(BasicBlock::Create(C, "entry", &F));
    unsigned n = VT->getNumElements();
    Value *e0 = B.CreateVectorSplat(n, F.getArg(0)), *e1 = B.CreateVectorSplat(n, F.getArg(1));
    Value *num = B.CreateFSub(F.getArg(2), e0);
    Value *den = B.CreateFSub(e1, e0);
    Value *t = B.CreateFDiv(num, den);
    t = B.CreateBinaryIntrinsic(Intrinsic::minnum, B.CreateBinaryIntrinsic(Intrinsic::maxnum, t, ConstantFP::get(RT, 0.0)),
                                ConstantFP::get(RT, 1.0));
    Value *p = B.CreateFSub(ConstantFP::get(RT, 3.0), B.CreateFMul(ConstantFP::get(RT, 2.0), t));
    B.CreateRet(B.CreateFMul(B.CreateFMul(t, t), p));
  }
}
