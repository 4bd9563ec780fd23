(** * An executable reference runner extracted from the Coq semantics.

    The runner is [run_fuel] of [Termination.v] (the [FileOrder] scheduler
    of spec/graph.rst section 3.5, proved a maximal run by
    [maximal_run_exists] and, under GRAPH-C1, equal to every maximal run by
    [runner_correct]) over the definitions of [Semantics.v]: [initial_state]
    (section 3.2), [executable_b] (section 3.3), [fire] (section 3.4) and
    [outputs_of]. Only the operator interpretation is fixed here: a small
    table of operators whose results depend on every argument, on which
    arguments are omitted and on the implicit inputs, so that a differential
    test against [sonnx.model.semantics] sees every input that a faulty
    implementation might drop. Nothing is assumed: the file only defines
    and extracts.

    Extraction maps Coq's [nat] to OCaml's [int] ([ExtrOcamlNatInt]). That
    is sound for the numbers the test uses: tensor ids, operation indices
    and values are non-negative (the driver refuses negative numbers) and
    stay far below [max_int] (the driver refuses values of 2^40 or more,
    and results are sums of at most a few dozen such products of small
    weights), so no OCaml addition or multiplication wraps around. *)

From Coq Require Import List Arith.
From Coq Require Extraction ExtrOcamlBasic ExtrOcamlNatInt.
From SONNX Require Import Semantics Termination Errors ErrorTrace.
Import ListNotations.

(** ** The operator table *)

(** An operation's operator: a code, a parameter and the number of results
    it gives (the length of its output mapping, or one less for the
    "short" operator, which the Python semantics refuses). *)
Record opcode := mkCode { code : nat; param : nat; nouts : nat }.

(** An argument as a number: 0 when omitted, the value plus one when
    given, so that omitting an input and giving 0 differ. *)
Definition argv (a : option nat) : nat := match a with Some v => S v | None => 0 end.

(** The weighted sum [k * a_0 + (k+1) * a_1 + ...]. *)
Fixpoint weighted (k : nat) (l : list (option nat)) : nat :=
  match l with
  | [] => 0
  | a :: l' => k * argv a + weighted (S k) l'
  end.

(** The largest [argv] of a list, 0 for the empty list. *)
Definition max_arg (l : list (option nat)) : nat :=
  fold_left (fun m a => Nat.max m (argv a)) l 0.

(** The value of the operator for explicit arguments [args] and implicit
    inputs [imps]: code 0 sums (weighted), code 1 takes the maximum, code 2
    copies explicit input number [param] (0 when omitted or absent) plus
    twice the weighted sum of the implicit inputs, code 3 is the constant
    [param], code 4 ("short") and code 5 ("failing", see [fails]) sum like
    code 0. *)
Definition compute (c : opcode) (args imps : list (option nat)) : nat :=
  match code c with
  | 0 => param c + weighted 1 args + weighted 2 imps
  | 1 => param c + Nat.max (max_arg args) (max_arg imps)
  | 2 => argv (match nth_error args (param c) with Some a => a | None => None end) + 2 * weighted 1 imps
  | 3 => param c
  | _ => param c + weighted 1 args + weighted 2 imps
  end.

(** Result [j] is the value plus [j], so that the outputs differ. *)
Definition table_results (c : opcode) (args imps : list (option nat)) : list nat :=
  map (fun j => compute c args imps + j) (seq 0 (nouts c)).

(** The interpretation of [Semantics.v]: operation [i] applies its entry
    of the table; an operation without an entry gives no result. *)
Definition table_interp (codes : list opcode) (i : nat) (args imps : list (option nat)) : list nat :=
  match nth_error codes i with
  | Some c => table_results c args imps
  | None => []
  end.

(** ** Operators that fail ([Errors.v]) *)

(** The failing operator, code 5, fails when its first explicit input is
    given and odd, so whether it fails depends on values computed
    upstream; otherwise it gives the results of code 0. *)
Definition fails (c : opcode) (args : list (option nat)) : bool :=
  match code c, args with
  | 5, Some v :: _ => Nat.odd v
  | _, _ => false
  end.

(** The partial interpretation of [Errors.v]: [None] for a failure. The
    "short" operator is not a failure here, but [Errors.checked] makes it
    one, since it gives fewer results than its output entries. *)
Definition ptable_interp (codes : list opcode) (i : nat) (args imps : list (option nat)) : option (list nat) :=
  match nth_error codes i with
  | Some c => if fails c args then None else Some (table_results c args imps)
  | None => Some []
  end.

(** ** The runner *)

(** A finite map given as a list of pairs; the first pair wins. *)
Fixpoint lookup (l : list (nat * nat)) (t : nat) : option nat :=
  match l with
  | [] => None
  | (k, v) :: l' => if Nat.eqb k t then Some v else lookup l' t
  end.

(** The initial state of [g] for the given input, initializer and outer
    values. *)
Definition start (g : graph) (inp init outer : list (nat * nat)) : @state nat :=
  initial_state g (lookup inp) (lookup init) (lookup outer).

(** The file-order maximal run from the initial state. *)
Definition run_graph (codes : list opcode) (g : graph) (inp init outer : list (nat * nat)) : @state nat :=
  run_fuel (table_interp codes) g (length (g_ops g)) (start g inp init outer).

(** One firing, for a step-by-step comparison. *)
Definition fire_op (codes : list opcode) (g : graph) (s : @state nat) (i : nat) : @state nat :=
  fire (table_interp codes) g s i.

(** The file-order maximal run with failures ([erun_fuel] of [Errors.v],
    proved by [error_runner_correct] to have, under GRAPH-C1, the outcome of
    every maximal run): [Failed i] or the final state. *)
Definition erun_graph (codes : list opcode) (g : graph) (inp init outer : list (nat * nat)) : @estate nat :=
  erun_fuel (ptable_interp codes) g (length (g_ops g)) (start g inp init outer).

(** The same run with the state after every firing that succeeded
    ([etrace_fuel] of [ErrorTrace.v], whose end is [erun_graph]'s and whose
    steps are the model's file-order firings by [error_trace_correct]): the
    driver prints those steps before [failed I]. *)
Definition etrace_graph (codes : list opcode) (g : graph) (inp init outer : list (nat * nat))
  : list (nat * @state nat) * @estate nat :=
  etrace_fuel (ptable_interp codes) g (length (g_ops g)) (start g inp init outer).

Definition graph_outputs (g : graph) (s : @state nat) : list (option nat) := outputs_of g s.

Definition is_executable (g : graph) (s : @state nat) (i : nat) : bool := executable_b g s i.

Extraction "sonnx_runner.ml" run_graph erun_graph etrace_graph fire_op start graph_outputs is_executable.
