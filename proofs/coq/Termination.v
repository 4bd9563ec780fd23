(** * Termination and exactly-once firing (spec/graph.rst, section 3).

    Every run of any graph ends after at most as many steps as the graph has
    operations, because each step fires an operation not fired before
    ([every_run_terminates]); from every state some run reaches a state
    where nothing is executable ([maximal_run_exists], computed by
    [run_fuel]). Under acyclicity (a strict rank on the operations'
    dependency relation) and "every required tensor has an origin", every
    operation fires exactly once in every maximal run ([exactly_once]). *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics.
Import ListNotations.

(** ** A counting lemma on [filter] *)

Lemma filter_length_le : forall {A : Type} (p p' : A -> bool) l,
  (forall x, In x l -> p' x = true -> p x = true) ->
  length (filter p' l) <= length (filter p l).
Proof.
  intros A p p' l. induction l as [| a l IH]; intros H; simpl; auto.
  assert (IH' : length (filter p' l) <= length (filter p l)) by (apply IH; intros; apply H; simpl; auto).
  destruct (p' a) eqn:E1; destruct (p a) eqn:E2; simpl; try lia.
  rewrite (H a (or_introl eq_refl) E1) in E2. discriminate.
Qed.

Lemma filter_length_self : forall {A : Type} (p : A -> bool) l, length (filter p l) <= length l.
Proof.
  intros A p l. induction l as [| a l IH]; simpl; auto. destruct (p a); simpl; lia.
Qed.

Lemma filter_length_lt : forall {A : Type} (p p' : A -> bool) l i,
  (forall x, In x l -> p' x = true -> p x = true) ->
  In i l -> p i = true -> p' i = false ->
  length (filter p' l) < length (filter p l).
Proof.
  intros A p p' l. induction l as [| a l IH]; intros i H Hin Hp Hp'; [destruct Hin |].
  simpl. assert (Hle : length (filter p' l) <= length (filter p l))
    by (apply filter_length_le; intros; apply H; simpl; auto).
  destruct Hin as [-> | Hin].
  - rewrite Hp, Hp'. simpl. lia.
  - assert (Hlt : length (filter p' l) < length (filter p l))
      by (apply (IH i); auto; intros; apply H; simpl; auto).
    destruct (p' a) eqn:E1; destruct (p a) eqn:E2; simpl; try lia.
    rewrite (H a (or_introl eq_refl) E1) in E2. discriminate.
Qed.

Section Termination.

Context {V : Type}.
Variable interp : nat -> list (option V) -> list (option V) -> list V.
Variable g : graph.

Local Notation state := (@state V).
Local Notation executable := (executable g).
Local Notation fire := (fire interp g).
Local Notation step := (step interp g).
Local Notation steps := (steps interp g).
Local Notation maximal := (maximal g).

(** ** The measure: how many operations have not fired *)

Definition unfired (s : state) : nat :=
  length (filter (fun i => negb (mem i (fired s))) (seq 0 (length (g_ops g)))).

Lemma unfired_le : forall s, unfired s <= length (g_ops g).
Proof.
  intros s. unfold unfired. rewrite <- (seq_length (length (g_ops g)) 0) at 2. apply filter_length_self.
Qed.

Lemma unfired_initial : forall s, fired s = [] -> unfired s = length (g_ops g).
Proof.
  intros s H. unfold unfired. rewrite H. simpl. rewrite <- (seq_length (length (g_ops g)) 0) at 2.
  induction (seq 0 (length (g_ops g))) as [| a l IH]; simpl; auto.
Qed.

(** Each step fires an operation not fired before, so the measure drops. *)
Lemma step_unfired : forall s s', step s s' -> unfired s' < unfired s.
Proof.
  intros s s' [i [[o [Ho [Hn _]]] ->]]. unfold unfired. rewrite (fire_fired interp g s i o Ho).
  apply (filter_length_lt _ _ _ i).
  - intros x _ Hx. apply negb_true_iff in Hx. apply negb_true_iff. apply mem_false.
    intros Hin. apply mem_false in Hx. apply Hx. right. exact Hin.
  - apply in_seq. split; [lia |]. simpl. apply nth_error_Some. rewrite Ho. discriminate.
  - apply negb_true_iff. apply mem_false. exact Hn.
  - apply negb_false_iff. apply mem_In. left. reflexivity.
Qed.

Lemma steps_unfired : forall n s s', steps n s s' -> unfired s' + n <= unfired s.
Proof.
  intros n s s' H. induction H as [s | n s t u Hst Hrest IH]; [lia |].
  pose proof (step_unfired s t Hst). lia.
Qed.

(** Termination, for any graph and any operators: a run from the initial
    state (where nothing has fired) has at most as many steps as the graph
    has operations. *)
Theorem every_run_terminates : forall s0 n s,
  fired s0 = [] -> steps n s0 s -> n <= length (g_ops g).
Proof.
  intros s0 n s H0 H. pose proof (steps_unfired n s0 s H) as H1. rewrite (unfired_initial s0 H0) in H1.
  lia.
Qed.

(** ** A runner, and the existence of a maximal run *)

(** The first executable operation in file order, if any. Mirrors the
    [FileOrder] scheduler. *)
Definition next (s : state) : option nat :=
  find (executable_b g s) (seq 0 (length (g_ops g))).

Lemma next_some : forall s i, next s = Some i -> executable s i.
Proof.
  intros s i H. apply find_some in H. destruct H as [_ H]. apply executable_b_spec. exact H.
Qed.

Lemma next_none : forall s, next s = None -> maximal s.
Proof.
  intros s H i Hi. pose proof Hi as [o [Ho _]].
  assert (Hlt : i < length (g_ops g)) by (apply nth_error_Some; rewrite Ho; discriminate).
  pose proof (find_none _ _ H i) as Hf. apply executable_b_spec in Hi.
  rewrite Hf in Hi; [discriminate |]. apply in_seq. lia.
Qed.

(** Fire the first executable operation until none is left, at most
    [fuel] times. *)
Fixpoint run_fuel (fuel : nat) (s : state) : state :=
  match fuel with
  | 0 => s
  | S f => match next s with Some i => run_fuel f (fire s i) | None => s end
  end.

Lemma run_fuel_steps : forall fuel s, exists n, steps n s (run_fuel fuel s).
Proof.
  induction fuel as [| f IH]; intros s; simpl.
  - exists 0. constructor.
  - destruct (next s) as [i |] eqn:E.
    + destruct (IH (fire s i)) as [n Hn]. exists (S n). econstructor; [| exact Hn].
      exists i. split; [apply next_some; exact E | reflexivity].
    + exists 0. constructor.
Qed.

Lemma run_fuel_maximal : forall fuel s, unfired s <= fuel -> maximal (run_fuel fuel s).
Proof.
  induction fuel as [| f IH]; intros s H; simpl.
  - destruct (next s) as [i |] eqn:E; [| apply next_none; exact E].
    pose proof (step_unfired s (fire s i) (ex_intro _ i (conj (next_some s i E) eq_refl))). lia.
  - destruct (next s) as [i |] eqn:E; [| apply next_none; exact E].
    apply IH. pose proof (step_unfired s (fire s i) (ex_intro _ i (conj (next_some s i E) eq_refl))).
    lia.
Qed.

(** From every state, [run_fuel] with as much fuel as there are operations
    ends a maximal run. *)
Theorem maximal_run_exists : forall s, maximal_run interp g s (run_fuel (length (g_ops g)) s).
Proof.
  intros s. split.
  - apply run_fuel_steps.
  - apply run_fuel_maximal. apply unfired_le.
Qed.

(** ** Exactly once *)

(** A run never fires an operation twice. *)
Lemma steps_nodup : forall n s s', steps n s s' -> NoDup (fired s) -> NoDup (fired s').
Proof.
  intros n s s' H. induction H as [s | n s t u [i [[o [Ho [Hn _]]] ->]] Hrest IH]; auto.
  intros Hnd. apply IH. rewrite (fire_fired interp g s i o Ho). constructor; assumption.
Qed.

(** A run fires only operations of the graph. *)
Lemma steps_fired_valid : forall n s s',
  steps n s s' -> (forall k, In k (fired s) -> k < length (g_ops g)) ->
  forall k, In k (fired s') -> k < length (g_ops g).
Proof.
  intros n s s' H. induction H as [s | n s t u [i [[o [Ho _]] ->]] Hrest IH]; auto.
  intros Hv. apply IH. intros k Hk. rewrite (fire_fired interp g s i o Ho) in Hk.
  destruct Hk as [<- | Hk]; auto. apply nth_error_Some. rewrite Ho. discriminate.
Qed.

(** The dependency graph of spec section 2.1: operation [i] precedes
    operation [j] when [i] produces a tensor that [j] consumes. *)
Definition precedes (i j : nat) : Prop :=
  exists oi oj t, nth_error (g_ops g) i = Some oi /\ nth_error (g_ops g) j = Some oj /\
    In (Some t) (op_outputs oi) /\ In t (required oj).

(** The same relation as a boolean, on operation indices, for a finite
    relation over [seq 0 (length (g_ops g))]. *)
Definition precedes_b (i j : nat) : bool :=
  match nth_error (g_ops g) i, nth_error (g_ops g) j with
  | Some oi, Some oj => existsb (fun t => existsb (fun e => match e with
                                                            | Some u => Nat.eqb u t
                                                            | None => false
                                                            end) (op_outputs oi))
                                (required oj)
  | _, _ => false
  end.

Lemma precedes_b_spec : forall i j, precedes_b i j = true <-> precedes i j.
Proof.
  intros i j. unfold precedes_b, precedes.
  destruct (nth_error (g_ops g) i) as [oi |] eqn:Ei; destruct (nth_error (g_ops g) j) as [oj |] eqn:Ej.
  2-4: split; [discriminate | intros [oi' [oj' [t [H1 [H2 _]]]]]; congruence].
  rewrite existsb_exists. split.
  - intros [t [Ht Hex]]. apply existsb_exists in Hex. destruct Hex as [[u |] [Hu Heq]]; [| discriminate].
    apply Nat.eqb_eq in Heq. subst u. exists oi, oj, t. auto.
  - intros [oi' [oj' [t [H1 [H2 [Ho Hr]]]]]]. injection H1 as <-. injection H2 as <-.
    exists t. split; [exact Hr |]. apply existsb_exists. exists (Some t). split; [exact Ho |].
    apply Nat.eqb_refl.
Qed.

(** Acyclicity (GRAPH-ACYCLIC), as a strict rank on the dependency graph:
    an operation that produces a tensor has a smaller rank than every
    operation that consumes it. *)
Definition ranked (rank : nat -> nat) : Prop :=
  forall i j oi oj t,
    nth_error (g_ops g) i = Some oi -> nth_error (g_ops g) j = Some oj ->
    In (Some t) (op_outputs oi) -> In t (required oj) -> rank i < rank j.

Lemma ranked_precedes : forall rank, ranked rank <-> (forall i j, precedes i j -> rank i < rank j).
Proof.
  intros rank. split.
  - intros H i j [oi [oj [t [Hi [Hj [Ho Hr]]]]]]. apply (H i j oi oj t); auto.
  - intros H i j oi oj t Hi Hj Ho Hr. apply H. exists oi, oj, t. auto.
Qed.

(** Every required tensor has an origin: it is defined in the start state
    or some operation produces it. *)
Definition has_origin (s0 : state) : Prop :=
  forall j oj t, nth_error (g_ops g) j = Some oj -> In t (required oj) ->
    defined s0 t \/ exists k ok, nth_error (g_ops g) k = Some ok /\ In (Some t) (op_outputs ok).

(** A fired operation has written each of its outputs (needs [arity_ok]). *)
Definition outputs_written (s : state) : Prop :=
  forall k ok t, In k (fired s) -> nth_error (g_ops g) k = Some ok -> In (Some t) (op_outputs ok) ->
    defined s t.

Lemma step_outputs_written : forall s s',
  arity_ok interp g -> step s s' -> outputs_written s -> outputs_written s'.
Proof.
  intros s s' Har [i [[o [Ho _]] ->]] Hw k ok t Hk Hok Ht.
  unfold defined. rewrite (fire_vals interp g s i o Ho).
  rewrite (fire_fired interp g s i o Ho) in Hk. destruct Hk as [<- | Hk].
  - rewrite Ho in Hok. injection Hok as <-. apply write_all; auto.
    unfold results. apply (Har i o). exact Ho.
  - apply write_mono. apply (Hw k ok t Hk Hok Ht).
Qed.

Lemma steps_outputs_written : forall n s s',
  arity_ok interp g -> steps n s s' -> outputs_written s -> outputs_written s'.
Proof.
  intros n s s' Har H. induction H; auto. intros Hw. apply IHsteps. apply (step_outputs_written s); auto.
Qed.

Lemma not_executable_missing : forall (s : state) j oj,
  nth_error (g_ops g) j = Some oj -> ~ In j (fired s) -> ~ executable s j ->
  exists t, In t (required oj) /\ ~ defined s t.
Proof.
  intros s j oj Hoj Hn Hne.
  destruct (forallb (fun n => is_some (vals s n)) (required oj)) eqn:E.
  - exfalso. apply Hne. exists oj. repeat split; auto. intros n Hin.
    rewrite forallb_forall in E. specialize (E n Hin). unfold defined. destruct (vals s n); discriminate.
  - apply Bool.not_true_iff_false in E. rewrite forallb_forall in E.
    assert (Hdec : forall n, {~ defined s n} + {~ ~ defined s n}).
    { intros n. unfold defined. destruct (vals s n); [right; intros H; apply H; discriminate | left; auto]. }
    destruct (Exists_dec (fun n => ~ defined s n) (required oj) Hdec) as [Hex | Hnex].
    + apply Exists_exists in Hex. exact Hex.
    + exfalso. apply E. intros n Hin. destruct (vals s n) eqn:Ev; [reflexivity |].
      exfalso. apply Hnex. apply Exists_exists. exists n. split; [exact Hin |]. unfold defined. rewrite Ev. auto.
Qed.

(** Under acyclicity and origins, every operation has fired in a maximal
    state reached from [s0] in which every fired operation has written its
    outputs: by strong induction on the rank, an unfired operation would
    miss an input that is either defined from the start or written by an
    operation of lower rank, which has fired. Shared by [exactly_once] and
    the error semantics' [error_exactly_once] (ErrorCause.v). *)
Lemma all_fired_by_rank : forall rank s0 s n,
  ranked rank -> has_origin s0 -> steps n s0 s -> maximal s -> outputs_written s ->
  forall i, i < length (g_ops g) -> In i (fired s).
Proof.
  intros rank s0 s n Hrank Horig Hrun Hmax Hw i.
  remember (rank i) as r eqn:Hr. revert i Hr.
  induction r as [r IH] using lt_wf_ind. intros i Hr Hi.
  destruct (nth_error (g_ops g) i) as [oi |] eqn:Hoi;
    [| apply nth_error_Some in Hi; contradiction].
  destruct (In_dec Nat.eq_dec i (fired s)) as [Hf | Hnf]; [exact Hf | exfalso].
  destruct (not_executable_missing s i oi Hoi Hnf (Hmax i)) as [t [Ht Hnd]].
  destruct (Horig i oi t Hoi Ht) as [Hd0 | [k [ok [Hok Hkt]]]].
  + apply Hnd. apply (steps_defined interp g n s0); auto.
  + assert (Hk : In k (fired s)).
    { apply (IH (rank k)); auto.
      - subst r. apply (Hrank k i ok oi t); auto.
      - apply nth_error_Some. rewrite Hok. discriminate. }
    apply Hnd. apply (Hw k ok t Hk Hok Hkt).
Qed.

(** Under acyclicity and origins, every operation fires in every maximal
    run from a state where nothing has fired (and at most once, by
    [steps_nodup]). *)
Theorem exactly_once : forall rank s0 s,
  arity_ok interp g -> ranked rank -> has_origin s0 -> fired s0 = [] ->
  maximal_run interp g s0 s ->
  NoDup (fired s) /\ (forall i, In i (fired s) <-> i < length (g_ops g)).
Proof.
  intros rank s0 s Har Hrank Horig H0 [[n Hrun] Hmax].
  assert (Hw : outputs_written s)
    by (apply (steps_outputs_written n s0); auto; intros k ok t Hk; rewrite H0 in Hk; destruct Hk).
  split; [apply (steps_nodup n s0); auto; rewrite H0; constructor |].
  intros i. split.
  - apply (steps_fired_valid n s0 s Hrun). intros k Hk. rewrite H0 in Hk. destruct Hk.
  - apply (all_fired_by_rank rank s0 s n); auto.
Qed.

End Termination.

Print Assumptions every_run_terminates.
Print Assumptions maximal_run_exists.
Print Assumptions exactly_once.
