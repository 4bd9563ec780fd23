(** * Nested graphs: If and Loop whose bodies are graphs (spec/graph.rst,
    sections 1.4 and 3.6).

    A control-flow operation's meaning is given by runs of its bodies, run
    by the same semantics as the enclosing graph ([Semantics.v]). The tensors
    of the enclosing scope a body reads (its captures) are implicit inputs
    of the operation ([op_implicit]): the body's capture [t] takes the value
    the operation received for the implicit input named [t].

    Two semantics are defined over one syntax ([ngraph], [kind]):
    - [run_ng]/[kind_fn]: functional; every graph, at every depth, is run by
      [run_fuel] (the [FileOrder] runner), with its control-flow operations
      interpreted by the nested runs;
    - [nres]/[kres]: relational; every graph, at every depth, may end any
      maximal run, with any schedule, and each nested invocation (each
      firing of a control-flow operation, each Loop iteration) may choose
      its own schedule.

    Under GRAPH-C1's at-most-one-assignment half at every depth
    ([all_c1]), every relational result is the functional one
    ([nres_functional], by induction on the nesting); hence a nested run is
    a function of its explicit inputs and captures ([nested_run_function])
    and any two maximal runs of a graph with nested graphs end in the same
    state ([nested_order_independence]). [nested_runs_exist] shows the
    relational semantics is never empty.

    Modelling choices (differences from [src/sonnx/model/semantics.py]):
    - If: the condition is the first explicit input; [truth] reads a value
      as a boolean; a missing condition gives no results (the Python
      raises).
    - Loop: explicit inputs [M; cond; v1..vn], body inputs
      [iteration; cond; v1..vn], body outputs [cond'; v1'..vn'; s1..sk];
      the trip count is [trips M], a natural number even when [M] is
      omitted (ONNX's loop "while cond" without a bound is not a total
      function: the model takes a bound). The Loop's results are the final
      carried values, then each scan output [sj] over the iterations that
      ran, in order, combined by [stack] (ONNX stacks them along a new first
      axis); [k] is the body's number of outputs less [n + 1], so a Loop
      that runs no iteration still gives [k] scan results ([stack []]).
      Scan is a Loop over slices and is left as an instance of it.
    - An undefined body output yields the value [undef] (the Python
      raises; failing operators are the subject of [Errors.v]).
    - The body sees only the values of the operation's implicit inputs
      (the Python passes the live enclosing mapping; the two agree on every
      name the body captures, which is an implicit input). *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence.
Import ListNotations.

Section Nested.

Context {V : Type}.

(** The primitive (non-control-flow) operators, as in [Semantics.v]. *)
Variable prim : nat -> list (option V) -> list (option V) -> list V.
(** A value read as a condition; an omitted Loop condition is [None]. *)
Variable truth : option V -> bool.
(** The iteration number given to a Loop body. *)
Variable of_nat : nat -> V.
(** A Loop's trip count from its (possibly omitted) [M]. *)
Variable trips : option V -> nat.
(** The value of an undefined body output. *)
Variable undef : V.
(** A Loop scan output: the values of one body output over the iterations. *)
Variable stack : list V -> V.

(** ** Syntax: graphs whose operations may hold graphs (spec 1.4) *)

(** A graph with nesting: the flat graph, its initializer values, and the
    kind of each operation (by position). *)
Inductive kind : Type :=
  | Prim : nat -> kind
  | IfK : ngraph -> ngraph -> kind
  | LoopK : ngraph -> kind
with ngraph : Type :=
  | NG : graph -> (nat -> option V) -> (nat -> kind) -> ngraph.

Scheme kind_mut := Induction for kind Sort Prop
  with ngraph_mut := Induction for ngraph Sort Prop.
Combined Scheme kind_ngraph_mut from kind_mut, ngraph_mut.

(** The names of operation [i]'s implicit inputs. *)
Definition imp_names (g : graph) (i : nat) : list nat :=
  match nth_error (g_ops g) i with Some o => op_implicit o | None => [] end.

(** The value bound to [t] by the first of [ns] naming it. *)
Fixpoint bind (ns : list nat) (vs : list (option V)) (t : nat) : option V :=
  match ns, vs with
  | n :: ns', v :: vs' => if Nat.eqb t n then v else bind ns' vs' t
  | _, _ => None
  end.

Definition fill (outs : list (option V)) : list V :=
  map (fun x => match x with Some v => v | None => undef end) outs.

(** [n] more iterations of a Loop from iteration [k], with condition [c]
    and carried values [vs]; [f k] is iteration [k]'s body run. The final
    carried values, and the scan values of each iteration that ran, in
    order: a body's outputs after the condition are its carried values
    (as many as [vs]), then its scan values. *)
Fixpoint loop_fn (f : nat -> list (option V) -> list (option V))
    (n k : nat) (c : option V) (vs : list (option V)) : list (option V) * list (list (option V)) :=
  match n with
  | 0 => (vs, [])
  | S n' =>
      if truth c then
        match f k (Some (of_nat k) :: c :: vs) with
        | c' :: rest =>
            let (fin, scans) := loop_fn f n' (S k) c' (firstn (length vs) rest) in
            (fin, skipn (length vs) rest :: scans)
        | [] => (vs, [])
        end
      else (vs, [])
  end.

Lemma loop_fn_ext : forall f f' n k c vs,
  (forall k xs, f k xs = f' k xs) -> loop_fn f n k c vs = loop_fn f' n k c vs.
Proof.
  intros f f' n. induction n as [| n IH]; intros k c vs H; simpl; auto.
  rewrite H. destruct (truth c); auto. destruct (f' k _); auto. rewrite IH; auto.
Qed.

(** A body's number of outputs. *)
Definition n_outputs (ng : ngraph) : nat := match ng with NG g _ _ => length (g_outputs g) end.

(** A Loop's results from [loop_fn]'s: the final carried values, then [nscan]
    scan outputs, output [j] the [stack] of the [j]-th scan value of each
    iteration (undefined ones as [undef]). *)
Definition loop_results (nscan : nat) (r : list (option V) * list (list (option V))) : list V :=
  fill (fst r) ++ map (fun j => stack (map (fun it => match nth j it None with Some v => v | None => undef end)
                                            (snd r)))
                      (seq 0 nscan).

(** The number of scan outputs of a Loop with body [body] and carried values [vs]. *)
Definition n_scans (body : ngraph) (vs : list (option V)) : nat := n_outputs body - S (length vs).

(** ** Functional semantics: [FileOrder] at every depth *)

Fixpoint kind_fn (k : kind) (ns : list nat) (a b : list (option V)) {struct k} : list V :=
  match k with
  | Prim p => prim p a b
  | IfK b1 b2 =>
      match a with
      | Some c :: _ => fill (run_ng (if truth (Some c) then b1 else b2) [] (bind ns b))
      | _ => []
      end
  | LoopK body =>
      match a with
      | m :: c :: vs =>
          loop_results (n_scans body vs) (loop_fn (fun _ xs => run_ng body xs (bind ns b)) (trips m) 0 c vs)
      | _ => []
      end
  end
with run_ng (ng : ngraph) (inp : list (option V)) (outer : nat -> option V) {struct ng}
    : list (option V) :=
  match ng with
  | NG g init kinds =>
      outputs_of g (run_fuel (fun i a b => kind_fn (kinds i) (imp_names g i) a b) g
                      (length (g_ops g)) (initial_state g (bind (g_inputs g) inp) init outer))
  end.

(** The interpretation of a graph's operations under [kind_fn]. *)
Definition ng_interp (g : graph) (kinds : nat -> kind) : nat -> list (option V) -> list (option V) -> list V :=
  fun i a b => kind_fn (kinds i) (imp_names g i) a b.

(** ** Relational semantics: any maximal run at every depth *)

(** [nres ng inp outer outs]: some maximal run of [ng]'s graph, from its
    inputs [inp] and outer values [outer], ends with outputs [outs], where
    each control-flow operation's results ([it]) are those of some nested
    run ([kres]). *)
Inductive nres : ngraph -> list (option V) -> (nat -> option V) -> list (option V) -> Prop :=
  | nres_run : forall g init kinds inp outer
      (it : nat -> list (option V) -> list (option V) -> list V) s,
      (forall i a b, kres (kinds i) (imp_names g i) a b (it i a b)) ->
      maximal_run it g (initial_state g (bind (g_inputs g) inp) init outer) s ->
      nres (NG g init kinds) inp outer (outputs_of g s)
with kres : kind -> list nat -> list (option V) -> list (option V) -> list V -> Prop :=
  | kres_prim : forall p ns a b, kres (Prim p) ns a b (prim p a b)
  | kres_if : forall b1 b2 ns c rest b outs,
      nres (if truth (Some c) then b1 else b2) [] (bind ns b) outs ->
      kres (IfK b1 b2) ns (Some c :: rest) b (fill outs)
  | kres_if_nocond : forall b1 b2 ns a b,
      (forall c rest, a <> Some c :: rest) -> kres (IfK b1 b2) ns a b []
  | kres_loop : forall body ns m c vs b (f : nat -> list (option V) -> list (option V)),
      (forall k xs, nres body xs (bind ns b) (f k xs)) ->
      kres (LoopK body) ns (m :: c :: vs) b (loop_results (n_scans body vs) (loop_fn f (trips m) 0 c vs))
  | kres_loop_short : forall body ns a b,
      length a < 2 -> kres (LoopK body) ns a b [].

Scheme nres_mut := Induction for nres Sort Prop
  with kres_mut := Induction for kres Sort Prop.
Combined Scheme nres_kres_mut from nres_mut, kres_mut.

(** ** GRAPH-C1 at every depth *)

Fixpoint all_c1 (ng : ngraph) : Prop :=
  match ng with NG g _ kinds => c1_assign g /\ forall i, kind_c1 (kinds i) end
with kind_c1 (k : kind) : Prop :=
  match k with
  | Prim _ => True
  | IfK b1 b2 => all_c1 b1 /\ all_c1 b2
  | LoopK body => all_c1 body
  end.

(** ** Runs under pointwise-equal interpretations *)

Lemma fire_interp_ext : forall (it it' : nat -> list (option V) -> list (option V) -> list V) g s i,
  (forall i a b, it i a b = it' i a b) -> fire it g s i = fire it' g s i.
Proof.
  intros it it' g s i H. unfold fire, results.
  destruct (nth_error (g_ops g) i); [rewrite H |]; reflexivity.
Qed.

Lemma steps_interp_ext : forall (it it' : nat -> list (option V) -> list (option V) -> list V) g n s s',
  (forall i a b, it i a b = it' i a b) -> steps it g n s s' -> steps it' g n s s'.
Proof.
  intros it it' g n s s' H R. induction R as [s | n s t u [i [Hi ->]] _ IH].
  - constructor.
  - econstructor; [| exact IH]. exists i. split; [exact Hi |]. apply fire_interp_ext. exact H.
Qed.

Lemma maximal_run_interp_ext : forall (it it' : nat -> list (option V) -> list (option V) -> list V) g s0 s,
  (forall i a b, it i a b = it' i a b) -> maximal_run it g s0 s -> maximal_run it' g s0 s.
Proof.
  intros it it' g s0 s H [[n R] M]. split; [| exact M]. exists n.
  apply (steps_interp_ext it); auto.
Qed.

(** ** Every nested run gives the [FileOrder] result *)

(** By mutual induction on the derivation, i.e. on the nesting depth: at
    each level the interpretation of the control-flow operations is, by
    the induction hypothesis, [ng_interp], a function of the inputs, so
    [runner_correct] of [OrderIndependence.v] applies at that level. *)
Lemma nres_kres_functional :
  (forall ng inp outer outs, nres ng inp outer outs -> all_c1 ng -> outs = run_ng ng inp outer) /\
  (forall k ns a b rs, kres k ns a b rs -> kind_c1 k -> rs = kind_fn k ns a b).
Proof.
  apply (nres_kres_mut
    (fun ng inp outer outs _ => all_c1 ng -> outs = run_ng ng inp outer)
    (fun k ns a b rs _ => kind_c1 k -> rs = kind_fn k ns a b)).
  - intros g init kinds inp outer it s Hk IHk Hrun [Hc1 Hkc]. simpl.
    assert (Hext : forall i a b, it i a b = ng_interp g kinds i a b).
    { intros i a b. apply IHk. apply Hkc. }
    apply (maximal_run_interp_ext it (ng_interp g kinds)) in Hrun; [| exact Hext].
    destruct (runner_correct (ng_interp g kinds) g _ init outer s Hc1 Hrun) as [Hv _].
    unfold outputs_of. apply map_ext. intros t. symmetry. apply Hv.
  - intros p ns a b _. reflexivity.
  - intros b1 b2 ns c rest b outs _ IH [H1 H2]. simpl. f_equal. apply IH.
    destruct (truth (Some c)); assumption.
  - intros b1 b2 ns a b Ha _. simpl. destruct a as [| [c |] rest]; auto.
    exfalso. apply (Ha c rest). reflexivity.
  - intros body ns m c vs b f _ IH Hc. simpl. f_equal. apply loop_fn_ext.
    intros k xs. apply IH. exact Hc.
  - intros body ns a b Hlen _. simpl. destruct a as [| x [| y a]]; simpl in Hlen; auto. lia.
Qed.

Lemma nres_functional : forall ng inp outer outs,
  nres ng inp outer outs -> all_c1 ng -> outs = run_ng ng inp outer.
Proof. exact (proj1 nres_kres_functional). Qed.

Lemma nres_exists_gen :
  (forall k ns a b, kres k ns a b (kind_fn k ns a b)) /\
  (forall ng inp outer, nres ng inp outer (run_ng ng inp outer)).
Proof.
  apply (kind_ngraph_mut
    (fun k => forall ns a b, kres k ns a b (kind_fn k ns a b))
    (fun ng => forall inp outer, nres ng inp outer (run_ng ng inp outer))).
  - intros p ns a b. apply kres_prim.
  - intros b1 IH1 b2 IH2 ns a b. simpl. destruct a as [| [c |] rest].
    + apply kres_if_nocond. intros c rest H. discriminate.
    + apply kres_if. destruct (truth (Some c)); [apply IH1 | apply IH2].
    + apply kres_if_nocond. intros c' rest' H. discriminate.
  - intros body IH ns a b. simpl. destruct a as [| m [| c vs]].
    + apply kres_loop_short. simpl. lia.
    + apply kres_loop_short. simpl. lia.
    + apply kres_loop. intros k xs. apply IH.
  - intros g init kinds IH inp outer. simpl.
    apply (nres_run g init kinds inp outer (ng_interp g kinds)).
    + intros i a b. apply IH.
    + apply maximal_run_exists.
Qed.


(** ** The theorems *)

(** The relational semantics is never empty (so the theorems below are not
    vacuous): from any explicit inputs and outer values, the [FileOrder] run
    at every depth is one of its runs; no premise. *)
Theorem nested_runs_exist : forall ng inp outer, nres ng inp outer (run_ng ng inp outer).
Proof. exact (proj2 nres_exists_gen). Qed.

(** A nested run's outputs are a function of its explicit inputs and its
    captures (the values of the implicit inputs of the operation holding
    it), whatever the schedule inside the body at every depth: two runs
    from the same explicit inputs, with outer values that agree on the
    body's captures, give the same outputs. Premise: GRAPH-C1's
    at-most-one-assignment half at every depth. *)
Theorem nested_run_function : forall ng inp outer1 outer2 outs1 outs2,
  all_c1 ng ->
  (forall t, In t (match ng with NG g _ _ => g_captures g end) -> outer1 t = outer2 t) ->
  nres ng inp outer1 outs1 -> nres ng inp outer2 outs2 ->
  outs1 = outs2.
Proof.
  intros ng inp outer1 outer2 outs1 outs2 Hc Hcap H1 H2.
  rewrite (nres_functional _ _ _ _ H1 Hc), (nres_functional _ _ _ _ H2 Hc).
  destruct ng as [g init kinds]. destruct Hc as [Hc1 _]. simpl.
  set (inp' := bind (g_inputs g) inp).
  apply (determinism (ng_interp g kinds) g inp' inp' init init outer1 outer2); auto;
    apply maximal_run_exists.
Qed.

(** Order independence with nested graphs: if every graph at every depth
    satisfies GRAPH-C1's at-most-one-assignment half, any two maximal runs
    of the main graph, each with control-flow operations interpreted by any
    nested runs (any schedule at every depth), end in the same state. *)
Theorem nested_order_independence : forall g init kinds
    (it1 it2 : nat -> list (option V) -> list (option V) -> list V) inp outer s1 s2,
  all_c1 (NG g init kinds) ->
  (forall i a b, kres (kinds i) (imp_names g i) a b (it1 i a b)) ->
  (forall i a b, kres (kinds i) (imp_names g i) a b (it2 i a b)) ->
  maximal_run it1 g (initial_state g inp init outer) s1 ->
  maximal_run it2 g (initial_state g inp init outer) s2 ->
  st_eq s1 s2.
Proof.
  intros g init kinds it1 it2 inp outer s1 s2 [Hc1 Hkc] Hk1 Hk2 R1 R2.
  assert (E : forall (it : nat -> list (option V) -> list (option V) -> list V),
    (forall i a b, kres (kinds i) (imp_names g i) a b (it i a b)) ->
    forall i a b, it i a b = ng_interp g kinds i a b).
  { intros it Hk i a b. apply (proj2 nres_kres_functional); auto. }
  apply (order_independence (ng_interp g kinds) g inp init outer); auto.
  - apply (maximal_run_interp_ext it1); auto.
  - apply (maximal_run_interp_ext it2); auto.
Qed.

End Nested.
