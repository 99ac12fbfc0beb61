// function_ref.hpp: FunctionRef<R(Args...)>, a non-owning reference to a callable, for parameters
// that are only called during the call they are passed to (C++26's std::function_ref, which the
// toolchains here lack). std::function copies each lambda's captures, and every lambda passed as
// one adds helper functions to the module (clone, destroy, target, ...): 519 of them, 58 kB of wasm
// code, when these parameters were std::function; 4 kB remain (issue 9's size budget). Never store
// one past the call: it points at the caller's callable.
#pragma once

#include <type_traits>
#include <utility>

namespace cardfit {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, FunctionRef> && std::is_invocable_r_v<R, const F&, Args...>)
  FunctionRef(const F& f)  // NOLINT: implicit, like std::function
      : target_(&f), call_([](const void* t, Args... args) -> R {
          return (*static_cast<const F*>(t))(std::forward<Args>(args)...);
        }) {}
  R operator()(Args... args) const { return call_(target_, std::forward<Args>(args)...); }

 private:
  const void* target_;
  R (*call_)(const void*, Args...);
};

}  // namespace cardfit
