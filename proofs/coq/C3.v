(** * GRAPH-C3's two forms are equivalent (spec/graph.rst, section 4).

    GRAPH-C3 states completeness dynamically ("at the end of execution
    every graph output has a value") and statically (every graph output is
    in the least set that contains the tensors defined initially and the
    outputs of every operation whose consumed tensors are in the set). The
    static form is the inductive predicate [derivable] (an inductive
    definition is the least set closed under its rules). The theorem
    [c3_fixpoint_iff_defined] shows the two forms agree, for any
    operators that give one value per output entry. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination.
Import ListNotations.

Section C3.

Context {V : Type}.
Variable interp : nat -> list (option V) -> list (option V) -> list V.
Variable g : graph.

Local Notation state := (@state V).
Local Notation executable := (executable g).
Local Notation fire := (fire interp g).
Local Notation step := (step interp g).
Local Notation steps := (steps interp g).
Local Notation maximal := (maximal g).
Local Notation maximal_run := (maximal_run interp g).

(** The least set of tensors that contains those defined in [s0] and the
    outputs of every operation whose required (consumed) tensors are all in
    it. With [s0] the initial state, the tensors defined in it are the graph
    inputs, the initializers and the captured outer tensors (given a value
    for each). *)
Inductive derivable (s0 : state) : nat -> Prop :=
  | der_init : forall t, defined s0 t -> derivable s0 t
  | der_op : forall i o t,
      nth_error (g_ops g) i = Some o ->
      (forall n, In n (required o) -> derivable s0 n) ->
      In (Some t) (op_outputs o) -> derivable s0 t.

(** GRAPH-C3, static form. *)
Definition c3_fixpoint (s0 : state) : Prop :=
  forall t, In t (g_outputs g) -> derivable s0 t.

(** GRAPH-C3, dynamic form: every graph output is defined at the end of
    every maximal run. *)
Definition c3_defined (s0 : state) : Prop :=
  forall s, maximal_run s0 s -> forall t, In t (g_outputs g) -> defined s t.

(** Only derivable tensors ever get a value: a step writes only outputs of
    an operation whose required tensors already have values. *)
Lemma steps_derivable_from : forall s0 m a b, steps m a b ->
  (forall y, defined a y -> derivable s0 y) -> forall y, defined b y -> derivable s0 y.
Proof.
  intros s0 m a b R. induction R as [a | m a c b [i [[o [Ho [_ Hr]]] ->]] R IHR]; auto.
  intros Ha. apply IHR. intros y Hy. unfold defined in Hy.
  rewrite (fire_vals interp g a i o Ho) in Hy.
  destruct (write_origin _ _ _ _ Hy) as [Hd | Hout]; [apply Ha; exact Hd |].
  apply (der_op s0 i o y Ho); auto.
Qed.

Lemma steps_derivable : forall s0 n s, steps n s0 s -> forall t, defined s t -> derivable s0 t.
Proof.
  intros s0 n s R. apply (steps_derivable_from s0 n s0 s R). intros y Hy. apply der_init. exact Hy.
Qed.

(** A derivable tensor has a value at the end of every maximal run from a
    state where nothing has fired, when each operator gives one value per
    output entry. *)
Lemma derivable_defined : forall s0 s,
  arity_ok interp g -> fired s0 = [] -> maximal_run s0 s ->
  forall t, derivable s0 t -> defined s t.
Proof.
  intros s0 s Har H0 [[n R] M] t Ht.
  assert (Hw : outputs_written g s)
    by (apply (steps_outputs_written interp g n s0); auto; intros k ok x Hk; rewrite H0 in Hk; destruct Hk).
  induction Ht as [t Hd | i o t Ho Hreq IH Hout].
  - apply (steps_defined interp g n s0); auto.
  - destruct (In_dec Nat.eq_dec i (fired s)) as [Hf | Hnf].
    + apply (Hw i o t Hf Ho Hout).
    + exfalso. apply (M i). exists o. repeat split; auto.
Qed.

(** GRAPH-C3's two forms are equivalent: from a state where nothing has
    fired, every graph output is in the least fixpoint exactly when every
    graph output has a value at the end of every maximal run. The premise
    [arity_ok] (each operator gives one value per output entry; the Python
    raises otherwise) is needed for the direction fixpoint => defined. *)
Theorem c3_fixpoint_iff_defined : forall s0,
  arity_ok interp g -> fired s0 = [] -> (c3_fixpoint s0 <-> c3_defined s0).
Proof.
  intros s0 Har H0. split.
  - intros Hfix s Hrun t Ht. apply (derivable_defined s0 s); auto.
  - intros Hdef t Ht.
    destruct (maximal_run_exists interp g s0) as [[n R] M].
    apply (steps_derivable s0 n _ R). apply Hdef; auto. split; [exists n; exact R | exact M].
Qed.

(** With a value given for every graph input, initializer and capture, the
    tensors defined initially are exactly the sources, so the base of the
    static form is syntactic, as GRAPH-C3 states it. *)
Lemma initial_defined_source : forall (inp init outer : nat -> option V) t,
  (forall x, In x (g_inputs g) -> inp x <> None) ->
  (forall x, In x (g_inits g) -> init x <> None) ->
  (forall x, In x (g_captures g) -> outer x <> None) ->
  defined (initial_state g inp init outer) t <-> source g t.
Proof.
  intros inp init outer t Hi Hn Ho. split; [apply initial_vals_source |].
  intros Hs. unfold defined. simpl. unfold initial_vals.
  destruct (mem t (g_inputs g)) eqn:E1.
  { apply mem_In in E1. destruct (inp t) eqn:Ev; [discriminate | exfalso; apply (Hi t E1 Ev)]. }
  cbn.
  destruct (mem t (g_inits g)) eqn:E2.
  { apply mem_In in E2. destruct (init t) eqn:Ev; [discriminate | exfalso; apply (Hn t E2 Ev)]. }
  destruct (mem t (g_captures g)) eqn:E3.
  { apply mem_In in E3. apply (Ho t E3). }
  exfalso. apply mem_false in E1, E2, E3. unfold source in Hs. tauto.
Qed.

End C3.

Print Assumptions c3_fixpoint_iff_defined.
Print Assumptions initial_defined_source.
