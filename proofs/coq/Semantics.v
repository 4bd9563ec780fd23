(** * The execution semantics of a flat SONNX graph (spec/graph.rst, section 3).

    This file mirrors [src/sonnx/model/semantics.py]: tensors, operations,
    the initial state, executability, firing, steps and maximal runs. The
    value domain [V] and the operators' meaning [interp] are parameters, so
    every theorem proved over these definitions holds for every operator
    interpretation. Only Coq's standard library is used. *)

From Coq Require Import List Arith Lia Bool.
Import ListNotations.

(** ** Syntax (spec section 1) *)

(** Tensors are named by [nat]. An operation has an input mapping whose
    entries may be omitted ([None], the empty string of ONNX), implicit
    inputs (the captures of its nested graphs, read like required inputs)
    and an output mapping whose entries may also be omitted. *)
Record operation := mkOp {
  op_inputs : list (option nat);
  op_implicit : list nat;
  op_outputs : list (option nat)
}.

(** A graph: inputs, tensors with an initial value (initializers), outer
    tensors it captures, operations indexed by position, outputs. *)
Record graph := mkGraph {
  g_inputs : list nat;
  g_inits : list nat;
  g_captures : list nat;
  g_ops : list operation;
  g_outputs : list nat
}.

(** The names an input-mapping entry requires: none when omitted. *)
Definition present (e : option nat) : list nat :=
  match e with Some n => [n] | None => [] end.

(** The tensors that must have a value before the operation fires (the
    tensors it consumes, spec section 2.1): the non-omitted explicit inputs,
    then the implicit ones. Mirrors the Python
    property [Operation.required_inputs] (which also removes repetitions;
    membership is all that matters here). *)
Definition required (o : operation) : list nat :=
  flat_map present (op_inputs o) ++ op_implicit o.

(** Boolean membership, so that the definitions below can be computed (and
    later extracted). *)
Definition mem (t : nat) (l : list nat) : bool := existsb (Nat.eqb t) l.

Lemma mem_In : forall t l, mem t l = true <-> In t l.
Proof.
  intros t l. unfold mem. rewrite existsb_exists. split.
  - intros [x [Hx Heq]]. apply Nat.eqb_eq in Heq. subst. exact Hx.
  - intros H. exists t. split; [exact H | apply Nat.eqb_refl].
Qed.

Lemma mem_false : forall t l, mem t l = false <-> ~ In t l.
Proof.
  intros t l. rewrite <- mem_In. destruct (mem t l); split; congruence.
Qed.

Section Semantics.

Context {V : Type}.

(** The operator interpretation: operation [i]'s result values from its
    explicit arguments ([None] where the entry is omitted) and the values of
    its implicit inputs. Mirrors [Interpretation.apply]; the implicit inputs
    are passed as values instead of through a [Scope]. *)
Variable interp : nat -> list (option V) -> list (option V) -> list V.

Variable g : graph.

(** ** States (spec section 3.1) *)

(** A state: the values of the tensors that have one, and the operations
    already fired. Mirrors the Python [State] ([values], [fired]). *)
Record state := mkState {
  vals : nat -> option V;
  fired : list nat
}.

Definition defined (s : state) (t : nat) : Prop := vals s t <> None.

(** Two states are equivalent when they give the same values and have fired
    the same operations (as sets): the Python [State] compares a dict and a
    frozenset, which is this equality. It avoids functional
    extensionality. *)
Definition st_eq (s s' : state) : Prop :=
  (forall t, vals s t = vals s' t) /\ (forall i, In i (fired s) <-> In i (fired s')).

Lemma st_eq_refl : forall s, st_eq s s.
Proof. intros s. split; [intros t; reflexivity | intros i; split; intros H; exact H]. Qed.

Lemma st_eq_sym : forall s s', st_eq s s' -> st_eq s' s.
Proof.
  intros s s' [Hv Hf]. split; [intros t; symmetry; apply Hv | intros i; split; apply Hf].
Qed.

Lemma st_eq_trans : forall s1 s2 s3, st_eq s1 s2 -> st_eq s2 s3 -> st_eq s1 s3.
Proof.
  intros s1 s2 s3 [Hv1 Hf1] [Hv2 Hf2]. split; intros.
  - rewrite Hv1. apply Hv2.
  - rewrite Hf1. apply Hf2.
Qed.

(** ** Initial state (spec section 3.2) *)

(** The initial state: a graph input takes its given value, else a tensor
    with an initial value takes it, else a captured outer tensor takes the
    outer value; nothing has fired. Mirrors [initial_state], where the
    input overrides the initializer of the same name (as in ONNX) and the
    initializer the outer capture ([values.update] in that order). *)
Definition initial_vals (inp init outer : nat -> option V) (t : nat) : option V :=
  match (if mem t (g_inputs g) then inp t else None) with
  | Some v => Some v
  | None =>
      match (if mem t (g_inits g) then init t else None) with
      | Some v => Some v
      | None => if mem t (g_captures g) then outer t else None
      end
  end.

Definition initial_state (inp init outer : nat -> option V) : state :=
  mkState (initial_vals inp init outer) [].

(** A source: a tensor the initial state may define. *)
Definition source (t : nat) : Prop :=
  In t (g_inputs g) \/ In t (g_inits g) \/ In t (g_captures g).

Lemma initial_vals_source : forall inp init outer t,
  initial_vals inp init outer t <> None -> source t.
Proof.
  intros inp init outer t H. unfold initial_vals, source in *.
  destruct (mem t (g_inputs g)) eqn:E1; [left; apply mem_In; exact E1 |].
  destruct (mem t (g_inits g)) eqn:E2; [right; left; apply mem_In; exact E2 |].
  destruct (mem t (g_captures g)) eqn:E3; [right; right; apply mem_In; exact E3 |].
  contradiction.
Qed.

(** ** Executable operations (spec section 3.3) *)

(** Operation [i] is executable when it exists, has not fired and every
    tensor it requires has a value. Mirrors [is_executable]. *)
Definition executable (s : state) (i : nat) : Prop :=
  exists o, nth_error (g_ops g) i = Some o /\ ~ In i (fired s) /\
            forall n, In n (required o) -> defined s n.

Definition is_some {A : Type} (x : option A) : bool :=
  match x with Some _ => true | None => false end.

(** The same test as a boolean, for computation. *)
Definition executable_b (s : state) (i : nat) : bool :=
  match nth_error (g_ops g) i with
  | Some o => negb (mem i (fired s)) && forallb (fun n => is_some (vals s n)) (required o)
  | None => false
  end.

Lemma executable_b_spec : forall s i, executable_b s i = true <-> executable s i.
Proof.
  intros s i. unfold executable_b, executable, defined.
  destruct (nth_error (g_ops g) i) as [o |] eqn:E.
  - rewrite andb_true_iff, negb_true_iff, mem_false, forallb_forall. split.
    + intros [Hf Hr]. exists o. repeat split; auto.
      intros n Hn. specialize (Hr n Hn). destruct (vals s n); discriminate.
    + intros [o' [Ho [Hf Hr]]]. injection Ho as <-. split; auto.
      intros n Hn. specialize (Hr n Hn). destruct (vals s n); [reflexivity | congruence].
  - split; [discriminate | intros [o [Ho _]]; discriminate].
Qed.

(** ** Firing (spec section 3.4) *)

(** [update f n v]: [f] with [n] set to [v]. *)
Definition update (f : nat -> option V) (n : nat) (v : V) : nat -> option V :=
  fun t => if Nat.eqb t n then Some v else f t.

(** Write the results to the output mapping, in order: an omitted entry
    takes no value, a later entry naming the same tensor overwrites an
    earlier one, and an already defined tensor is overwritten. Mirrors the
    loop [for name, value in zip(...)] of [_fire_into]. Where the Python
    raises on a count mismatch, this stops at the shorter list; the
    theorems that need every output written assume the counts match
    ([arity_ok]). *)
Fixpoint write (outs : list (option nat)) (rs : list V) (f : nat -> option V)
  : nat -> option V :=
  match outs, rs with
  | Some n :: outs', r :: rs' => write outs' rs' (update f n r)
  | None :: outs', _ :: rs' => write outs' rs' f
  | _, _ => f
  end.

(** The argument list: [None] for an omitted entry. Mirrors
    [values[n] if n else None] in [_fire_into]. *)
Definition arg (s : state) (e : option nat) : option V :=
  match e with Some n => vals s n | None => None end.

Definition args (s : state) (o : operation) : list (option V) := map (arg s) (op_inputs o).

Definition imps (s : state) (o : operation) : list (option V) := map (vals s) (op_implicit o).

Definition results (s : state) (i : nat) (o : operation) : list V :=
  interp i (args s o) (imps s o).

(** Fire operation [i]: write its results, mark it fired. Mirrors [fire];
    the Python raises when [i] is not executable, here [fire] is total and
    the [step] relation below only fires executable operations. *)
Definition fire (s : state) (i : nat) : state :=
  match nth_error (g_ops g) i with
  | Some o => mkState (write (op_outputs o) (results s i o) (vals s)) (i :: fired s)
  | None => s
  end.

(** ** Runs (spec section 3.5) *)

Definition step (s s' : state) : Prop := exists i, executable s i /\ s' = fire s i.

(** [steps n s s']: a run of [n] steps from [s] to [s']. *)
Inductive steps : nat -> state -> state -> Prop :=
  | steps_refl : forall s, steps 0 s s
  | steps_cons : forall n s t u, step s t -> steps n t u -> steps (S n) s u.

(** A state where nothing is executable: where [run] stops. *)
Definition maximal (s : state) : Prop := forall i, ~ executable s i.

(** [s] is the end of a maximal run from [s0]. Mirrors [run], whatever its
    scheduler chooses. *)
Definition maximal_run (s0 s : state) : Prop := (exists n, steps n s0 s) /\ maximal s.

(** The values of the graph outputs, [None] where undefined. Mirrors
    [outputs_of] (which raises on an undefined output). *)
Definition outputs_of (s : state) : list (option V) := map (vals s) (g_outputs g).

(** Every operation's interpretation gives one value per output entry (the
    Python raises otherwise). *)
Definition arity_ok : Prop :=
  forall i o a b, nth_error (g_ops g) i = Some o -> length (interp i a b) = length (op_outputs o).

(** ** Lemmas on [write] *)

Definition option_eq_nat : forall x y : option nat, {x = y} + {x <> y}.
Proof. decide equality. apply Nat.eq_dec. Defined.

Lemma write_pointwise : forall outs rs f f' t,
  f t = f' t -> write outs rs f t = write outs rs f' t.
Proof.
  induction outs as [| [n |] outs IH]; intros rs f f' t H; destruct rs as [| r rs]; simpl; auto.
  apply IH. unfold update. destruct (Nat.eqb t n); auto.
Qed.

Lemma write_other : forall outs rs f t, ~ In (Some t) outs -> write outs rs f t = f t.
Proof.
  induction outs as [| [n |] outs IH]; intros rs f t H; destruct rs as [| r rs]; simpl; auto.
  - rewrite IH by (intros Hin; apply H; right; exact Hin).
    unfold update. destruct (Nat.eqb_spec t n); [subst; exfalso; apply H; left; reflexivity | reflexivity].
  - apply IH. intros Hin. apply H. right. exact Hin.
Qed.

Lemma write_mono : forall outs rs f t, f t <> None -> write outs rs f t <> None.
Proof.
  induction outs as [| [n |] outs IH]; intros rs f t H; destruct rs as [| r rs]; simpl; auto.
  apply IH. unfold update. destruct (Nat.eqb t n); [discriminate | exact H].
Qed.

Lemma write_origin : forall outs rs f t,
  write outs rs f t <> None -> f t <> None \/ In (Some t) outs.
Proof.
  intros outs rs f t H. destruct (In_dec (option_eq_nat) (Some t) outs) as [Hin | Hin].
  - right. exact Hin.
  - left. rewrite write_other in H by exact Hin. exact H.
Qed.

Lemma write_all : forall outs rs f t,
  length rs = length outs -> In (Some t) outs -> write outs rs f t <> None.
Proof.
  induction outs as [| e outs IH]; intros rs f t Hlen Hin; [destruct Hin |].
  destruct rs as [| r rs]; [discriminate |]. simpl in Hlen. injection Hlen as Hlen.
  destruct Hin as [-> | Hin]; simpl.
  - apply write_mono. unfold update. rewrite Nat.eqb_refl. discriminate.
  - destruct e as [n |]; apply IH; auto.
Qed.

(** ** Lemmas on [fire] and [step] *)

Lemma fire_vals : forall s i o, nth_error (g_ops g) i = Some o ->
  vals (fire s i) = write (op_outputs o) (results s i o) (vals s).
Proof. intros s i o H. unfold fire. rewrite H. reflexivity. Qed.

Lemma fire_fired : forall s i o, nth_error (g_ops g) i = Some o ->
  fired (fire s i) = i :: fired s.
Proof. intros s i o H. unfold fire. rewrite H. reflexivity. Qed.

(** A value, once defined, stays defined: firing only adds values. *)
Lemma step_defined : forall s s' t, step s s' -> defined s t -> defined s' t.
Proof.
  intros s s' t [i [[o [Ho _]] ->]] Hd. unfold defined. rewrite (fire_vals s i o Ho).
  apply write_mono. exact Hd.
Qed.

Lemma steps_defined : forall n s s' t, steps n s s' -> defined s t -> defined s' t.
Proof.
  intros n s s' t H. induction H; auto. intros Hd. apply IHsteps. apply (step_defined s); auto.
Qed.

Lemma step_fired : forall s s' k, step s s' -> In k (fired s) -> In k (fired s').
Proof.
  intros s s' k [i [[o [Ho _]] ->]] Hk. rewrite (fire_fired s i o Ho). right. exact Hk.
Qed.

Lemma steps_fired : forall n s s' k, steps n s s' -> In k (fired s) -> In k (fired s').
Proof.
  intros n s s' k H. induction H; auto. intros Hk. apply IHsteps. apply (step_fired s); auto.
Qed.

Lemma steps_trans : forall n m s t u, steps n s t -> steps m t u -> steps (n + m) s u.
Proof.
  intros n m s t u H. induction H; intros Hm; simpl; auto. econstructor; eauto.
Qed.

(** The arguments depend only on the values of the required inputs. *)
Lemma results_agree : forall s s' i o,
  (forall n, In n (required o) -> vals s n = vals s' n) -> results s i o = results s' i o.
Proof.
  intros s s' i o H. unfold results, args, imps. f_equal.
  - apply map_ext_in. intros [n |] Hin; simpl; auto. apply H. unfold required.
    apply in_or_app. left. apply in_flat_map. exists (Some n). simpl. auto.
  - apply map_ext_in. intros n Hin. apply H. unfold required. apply in_or_app. right. exact Hin.
Qed.

(** Equivalent states fire to equivalent states and have the same
    executable operations. *)
Lemma fire_st_eq : forall s s' i, st_eq s s' -> st_eq (fire s i) (fire s' i).
Proof.
  intros s s' i [Hv Hf]. unfold fire. destruct (nth_error (g_ops g) i) as [o |] eqn:E.
  - split; simpl.
    + intros t. rewrite (results_agree s s' i o) by (intros; apply Hv).
      apply write_pointwise. apply Hv.
    + intros k. rewrite Hf. tauto.
  - split; assumption.
Qed.

Lemma executable_st_eq : forall s s' i, st_eq s s' -> executable s i -> executable s' i.
Proof.
  intros s s' i [Hv Hf] [o [Ho [Hn Hr]]]. exists o. repeat split; auto.
  - rewrite <- Hf. exact Hn.
  - intros n Hin. unfold defined. rewrite <- Hv. apply Hr. exact Hin.
Qed.

Lemma maximal_st_eq : forall s s', st_eq s s' -> maximal s -> maximal s'.
Proof.
  intros s s' Heq Hm i He. apply (Hm i). apply (executable_st_eq s'); auto. apply st_eq_sym. exact Heq.
Qed.

(** A run from a state can be replayed, operation by operation, from an
    equivalent state and ends in an equivalent state. *)
Lemma steps_st_eq : forall n s t s', steps n s t -> st_eq s s' ->
  exists t', steps n s' t' /\ st_eq t t'.
Proof.
  intros n s t s' H. revert s'. induction H as [s | n s t u [i [Hi ->]] Hrest IH]; intros s' Heq.
  - exists s'. split; [constructor | exact Heq].
  - destruct (IH (fire s' i) (fire_st_eq s s' i Heq)) as [u' [Hu' Heq']].
    exists u'. split; auto. econstructor; [| exact Hu'].
    exists i. split; auto. apply (executable_st_eq s); auto.
Qed.

End Semantics.
