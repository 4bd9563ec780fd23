(** * Two concrete function calls for the theorem of [Inline.v]
    (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    - [inline_premises_satisfiable]: a call on which every premise of
      [Inline.inline_matches_nested] holds (each is discharged in the proof)
      and the call fires, so the theorem is not vacuous;
    - [strict_call_needed]: a call on which every premise holds but the one
      that the call fires, and the two readings give different outputs;
    - [inline_omitted_premises_satisfiable]: a call that omits an output,
      on which every premise of [InlineOmitted.inline_matches_nested_omitted]
      holds. *)

From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph Inline InlineOmitted.
Import ListNotations.

(** ** The premises can hold: a concrete call *)

(** A caller with two operations, [1 := f(0)] (the call, at position 0)
    and [2 := double(1)], and a body [f] with two operations,
    [5 := inc0(0)] and [1 := inc1(5)]; the renaming keeps the interface
    names [0] and [1] and sends every other body name [u] to [u + 10]. *)
Definition ex_g : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 1]; mkOp [Some 1] [] [Some 2]] [2].
Definition ex_fb : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 5]; mkOp [Some 5] [] [Some 1]] [1].
Definition ex_ren (u : nat) : nat := if u =? 0 then 0 else if u =? 1 then 1 else u + 10.
Definition ex_it (i : nat) (a b : list (option nat)) : list nat :=
  [match a with Some x :: _ => 2 * x | _ => 0 end].
Definition ex_ib (j : nat) (a b : list (option nat)) : list nat :=
  [match a with Some x :: _ => x + 1 + j | _ => 0 end].
Definition ex_inp (t : nat) : option nat := if t =? 0 then Some 3 else None.

Lemma ex_g_tensor : forall t, g_tensor ex_g t -> t <= 2.
Proof.
  intros t [[H | [H | H]] | [H | [i [o [Ho [H | H]]]]]]; simpl in *; try tauto; try lia.
  - destruct i as [| [| i]]; simpl in Ho; [injection Ho as <- | injection Ho as <- | destruct i; discriminate];
      simpl in H; lia.
  - destruct i as [| [| i]]; simpl in Ho; [injection Ho as <- | injection Ho as <- | destruct i; discriminate];
      simpl in H; destruct H as [H | []]; injection H as <-; lia.
Qed.

Lemma ex_c1 : forall (gr : graph),
  (forall i j oi oj t, nth_error (g_ops gr) i = Some oi -> nth_error (g_ops gr) j = Some oj ->
     In (Some t) (op_outputs oi) -> In (Some t) (op_outputs oj) -> i = j) ->
  (forall i o t, nth_error (g_ops gr) i = Some o -> In (Some t) (op_outputs o) -> ~ source gr t) ->
  c1_assign gr.
Proof. intros gr H1 H2. split; [exact H1 | exact H2]. Qed.

Lemma ex_nth2 : forall (A : Type) (a b : A) i o, nth_error [a; b] i = Some o -> (i = 0 /\ o = a) \/ (i = 1 /\ o = b).
Proof.
  intros A a b [| [| i]] o H; simpl in H; [injection H as <- | injection H as <- | destruct i; discriminate]; auto.
Qed.

(** Non-vacuity of [inline_matches_nested]: on the call above, every one
    of its premises holds (each is discharged in the proof) and the call
    fires, so the theorem gives the inlined graph's outputs, whatever
    maximal run computes them: [2 * ((3 + 1) + 2) = 12]. *)
Theorem inline_premises_satisfiable : forall s2,
  maximal_run (inline_interp ex_it ex_ib 0 ex_fb) (inline_graph ex_g 0 ex_fb ex_ren)
    (initial_state (inline_graph ex_g 0 ex_fb ex_ren) ex_inp nothing nothing) s2 ->
  outputs_of (inline_graph ex_g 0 ex_fb ex_ren) s2 = [Some 12].
Proof.
  intros s2 R2.
  set (s1 := run_fuel (nested_interp ex_it ex_ib 0 0 ex_fb) ex_g 2 (initial_state ex_g ex_inp nothing nothing)).
  assert (Hs1 : outputs_of ex_g s1 = [Some 12] /\ In 0 (fired s1)) by (vm_compute; auto).
  destruct Hs1 as [Hout Hc]. rewrite <- Hout.
  refine (proj2 (inline_matches_nested ex_it ex_ib 0 ex_g 0 ex_fb ex_ren ex_inp nothing nothing s1 s2
                   _ _ _ _ _ _ _ _ _ _ _ Hc R2)).
  - reflexivity.
  - reflexivity.
  - reflexivity.
  - simpl. intros u [<- | []] [H | []]. discriminate.
  - intros u x Hx. simpl in Hx. unfold ex_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); intros; try lia; tauto.
  - intros u [Hi Ho] Ht. apply ex_g_tensor in Ht. simpl in Hi, Ho. unfold ex_ren in Ht.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); try tauto; lia.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - intros i o a b Hi. simpl in Hi. apply ex_nth2 in Hi. destruct Hi as [[-> ->] | [-> ->]]; reflexivity.
  - intros inp Hinp t [<- | []].
    assert (H0 : derivable ex_fb (initial_state ex_fb inp nothing nothing) 0).
    { apply der_init. unfold defined. simpl. unfold initial_vals. simpl.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    assert (H5 : derivable ex_fb (initial_state ex_fb inp nothing nothing) 5).
    { apply (der_op _ _ 0 (mkOp [Some 0] [] [Some 5])); [reflexivity | | left; reflexivity].
      intros n [<- | []]. exact H0. }
    apply (der_op _ _ 1 (mkOp [Some 5] [] [Some 1])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H5.
  - split; [apply run_fuel_steps | apply run_fuel_maximal; rewrite unfired_initial; auto].
Qed.

(** ** The call must fire *)

(** A caller whose only operation is a call [1 := f(0, 3)], where nothing
    ever defines [3], and a body [f(0, 1)] whose only operation, [2 :=
    inc0(0)], reads only its first input; the renaming sends [0, 1, 2] to
    [0, 3, 1] and every other name [u] to [u + 10]. *)
Definition ex2_g : graph := mkGraph [0] [] [] [mkOp [Some 0; Some 3] [] [Some 1]] [1].
Definition ex2_fb : graph := mkGraph [0; 1] [] [] [mkOp [Some 0] [] [Some 2]] [2].
Definition ex2_ren (u : nat) : nat :=
  if u =? 0 then 0 else if u =? 1 then 3 else if u =? 2 then 1 else u + 10.

Lemma ex_nth1 : forall (A : Type) (a : A) i o, nth_error [a] i = Some o -> i = 0 /\ o = a.
Proof. intros A a [| i] o H; simpl in H; [injection H as <-; auto | destruct i; discriminate]. Qed.

(** The premise that the call fires cannot be dropped from
    [inline_matches_nested]: on the graphs above every other premise
    holds, yet in every maximal run of the caller the call never fires
    (its input [3] never has a value) and the graph output stays
    undefined, while in every maximal run of the inlined graph the body's
    operation fires on input [0] alone and defines the output. *)
Theorem strict_call_needed :
  nth_error (g_ops ex2_g) 0 = Some (call_op ex2_fb ex2_ren) /\
  g_inits ex2_fb = [] /\ g_captures ex2_fb = [] /\
  (forall u, In u (g_inputs ex2_fb) -> ~ In u (g_outputs ex2_fb)) /\
  (forall u x, ~ In x (g_inputs ex2_fb) -> ex2_ren u = ex2_ren x -> u = x) /\
  (forall u, internal ex2_fb u -> ~ g_tensor ex2_g (ex2_ren u)) /\
  c1_assign ex2_g /\ c1_assign ex2_fb /\ arity_ok ex_ib ex2_fb /\
  (forall inp : nat -> option nat, (forall x, In x (g_inputs ex2_fb) -> inp x <> None) ->
     c3_fixpoint ex2_fb (initial_state ex2_fb inp nothing nothing)) /\
  forall s1 s2,
    maximal_run (nested_interp ex_it ex_ib 0 0 ex2_fb) ex2_g (initial_state ex2_g ex_inp nothing nothing) s1 ->
    maximal_run (inline_interp ex_it ex_ib 0 ex2_fb) (inline_graph ex2_g 0 ex2_fb ex2_ren)
      (initial_state (inline_graph ex2_g 0 ex2_fb ex2_ren) ex_inp nothing nothing) s2 ->
    ~ In 0 (fired s1) /\ outputs_of ex2_g s1 = [None] /\ outputs_of (inline_graph ex2_g 0 ex2_fb ex2_ren) s2 = [Some 4].
Proof.
  assert (Hc1g : c1_assign ex2_g).
  { split.
    - intros i j oi oj t Hi Hj _ _. apply ex_nth1 in Hi, Hj. lia.
    - intros i o t Hi Ht Hs. apply ex_nth1 in Hi. destruct Hi as [-> ->].
      simpl in Ht. destruct Ht as [Ht | []]. injection Ht as <-. unfold source in Hs. simpl in Hs.
      intuition discriminate. }
  assert (Hc1b : c1_assign ex2_fb).
  { split.
    - intros i j oi oj t Hi Hj _ _. apply ex_nth1 in Hi, Hj. lia.
    - intros i o t Hi Ht Hs. apply ex_nth1 in Hi. destruct Hi as [-> ->].
      simpl in Ht. destruct Ht as [Ht | []]. injection Ht as <-. unfold source in Hs. simpl in Hs.
      intuition discriminate. }
  assert (Hcall : nth_error (g_ops ex2_g) 0 = Some (call_op ex2_fb ex2_ren)) by reflexivity.
  assert (Hinj : forall u x, ~ In x (g_inputs ex2_fb) -> ex2_ren u = ex2_ren x -> u = x).
  { intros u x Hx. simpl in Hx. unfold ex2_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); destruct (Nat.eqb_spec u 2);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); destruct (Nat.eqb_spec x 2);
      intros; subst; lia. }
  assert (Hfresh : forall u, internal ex2_fb u -> ~ g_tensor ex2_g (ex2_ren u)).
  { intros u [Hi Ho] Ht. simpl in Hi, Ho. unfold ex2_ren in Ht.
    destruct (Nat.eqb_spec u 0); [subst; tauto |]. destruct (Nat.eqb_spec u 1); [subst; tauto |].
    destruct (Nat.eqb_spec u 2); [subst; tauto |].
    destruct Ht as [[H | [H | H]] | [H | [i [o [Hio [H | H]]]]]]; simpl in H; try lia.
    - apply ex_nth1 in Hio. destruct Hio as [-> ->]. simpl in H. lia.
    - apply ex_nth1 in Hio. destruct Hio as [-> ->]. simpl in H.
      destruct H as [H | []]. injection H as H. lia. }
  assert (Hc1' : c1_assign (inline_graph ex2_g 0 ex2_fb ex2_ren))
    by (eapply inline_c1_assign; eauto).
  split; [exact Hcall |]. split; [reflexivity |]. split; [reflexivity |].
  split; [simpl; intros u [<- | [<- | []]] [H | []]; discriminate |].
  split; [exact Hinj |]. split; [exact Hfresh |]. split; [exact Hc1g |]. split; [exact Hc1b |].
  split; [intros i o a b Hi; apply ex_nth1 in Hi; destruct Hi as [-> ->]; reflexivity |].
  split.
  { intros inp Hinp t [<- | []].
    assert (H0 : derivable ex2_fb (initial_state ex2_fb inp nothing nothing) 0).
    { apply der_init. unfold defined. simpl. unfold initial_vals. simpl.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    apply (der_op _ _ 0 (mkOp [Some 0] [] [Some 2])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H0. }
  intros s1 s2 R1 R2.
  destruct (runner_correct _ ex2_g ex_inp nothing nothing s1 Hc1g R1) as [E1 F1].
  destruct (runner_correct _ _ ex_inp nothing nothing s2 Hc1' R2) as [E2 F2].
  split; [| split].
  - rewrite <- F1. vm_compute. tauto.
  - unfold outputs_of. simpl. rewrite <- E1. vm_compute. reflexivity.
  - unfold outputs_of. simpl. rewrite <- E2. vm_compute. reflexivity.
Qed.

(** ** A call that omits an output *)

(** The body of the first example with a second output, [5]; the call
    [1, _ := f(0)] omits it, so inlining names it [15], a name the caller
    does not mention. *)
Definition ex3_g : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 1; None]; mkOp [Some 1] [] [Some 2]] [2].
Definition ex3_fb : graph :=
  mkGraph [0] [] [] [mkOp [Some 0] [] [Some 5]; mkOp [Some 5] [] [Some 1]] [1; 5].

Lemma ex3_g_tensor : forall t, g_tensor ex3_g t -> t <= 2.
Proof.
  intros t [[H | [H | H]] | [H | [i [o [Ho H]]]]]; simpl in *; try tauto; try lia.
  apply ex_nth2 in Ho. destruct Ho as [[-> ->] | [-> ->]]; unfold required in H; simpl in H;
    repeat match goal with Hx : _ \/ _ |- _ => destruct Hx end; try discriminate; try contradiction;
    repeat match goal with Hx : Some _ = Some _ |- _ => injection Hx as <- end; lia.
Qed.

(** Non-vacuity of [inline_matches_nested_omitted]: on the call above
    every premise holds and the call fires, so the theorem gives the
    inlined graph's outputs, whatever maximal run computes them. *)
Theorem inline_omitted_premises_satisfiable : forall s2,
  maximal_run (inline_interp ex_it ex_ib 0 ex3_fb) (inline_graph ex3_g 0 ex3_fb ex_ren)
    (initial_state (inline_graph ex3_g 0 ex3_fb ex_ren) ex_inp nothing nothing) s2 ->
  outputs_of (inline_graph ex3_g 0 ex3_fb ex_ren) s2 = [Some 12].
Proof.
  intros s2 R2.
  set (s1 := run_fuel (nested_interp ex_it ex_ib 0 0 ex3_fb) ex3_g 2 (initial_state ex3_g ex_inp nothing nothing)).
  assert (Hs1 : outputs_of ex3_g s1 = [Some 12] /\ In 0 (fired s1)) by (vm_compute; auto).
  destruct Hs1 as [Hout Hc]. rewrite <- Hout.
  refine (proj2 (inline_matches_nested_omitted ex_it ex_ib 0 ex3_g 0 ex3_fb ex_ren [Some 1; None]
                   ex_inp nothing nothing s1 s2 _ _ _ _ _ _ _ _ _ _ _ _ Hc R2)).
  - reflexivity.
  - constructor; [left; reflexivity |]. constructor; [| constructor].
    right. split; [reflexivity |]. intros Ht. apply ex3_g_tensor in Ht. vm_compute in Ht. lia.
  - reflexivity.
  - reflexivity.
  - simpl. intros u [<- | []] [H | [H | []]]; discriminate.
  - intros u x Hx. simpl in Hx. unfold ex_ren.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1);
      destruct (Nat.eqb_spec x 0); destruct (Nat.eqb_spec x 1); intros; try lia; tauto.
  - intros u [Hi Ho] Ht. apply ex3_g_tensor in Ht. simpl in Hi, Ho. unfold ex_ren in Ht.
    destruct (Nat.eqb_spec u 0); destruct (Nat.eqb_spec u 1); try tauto; lia.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; repeat match goal with Hx : _ \/ _ |- _ => destruct Hx end;
        try contradiction; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht;
        repeat match goal with Hx : _ \/ _ |- _ => destruct Hx end; try contradiction; try discriminate;
        repeat match goal with Hx : Some _ = Some _ |- _ => injection Hx as <- end;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - apply ex_c1.
    + intros i j oi oj t Hi Hj Ht Ht'. simpl in Hi, Hj.
      apply ex_nth2 in Hi, Hj. destruct Hi as [[-> ->] | [-> ->]]; destruct Hj as [[-> ->] | [-> ->]];
        simpl in Ht, Ht'; auto; destruct Ht as [Ht | []]; destruct Ht' as [Ht' | []]; congruence.
    + intros i o t Hi Ht Hs. simpl in Hi. apply ex_nth2 in Hi.
      destruct Hi as [[-> ->] | [-> ->]]; simpl in Ht; destruct Ht as [Ht | []]; injection Ht as <-;
        unfold source in Hs; simpl in Hs; intuition discriminate.
  - intros i o a b Hi. simpl in Hi. apply ex_nth2 in Hi. destruct Hi as [[-> ->] | [-> ->]]; reflexivity.
  - intros inp Hinp t Ht.
    assert (H0 : derivable ex3_fb (initial_state ex3_fb inp nothing nothing) 0).
    { apply der_init. unfold defined. simpl. unfold initial_vals. simpl.
      destruct (inp 0) eqn:E; [discriminate | exfalso; exact (Hinp 0 (or_introl eq_refl) E)]. }
    assert (H5 : derivable ex3_fb (initial_state ex3_fb inp nothing nothing) 5).
    { apply (der_op _ _ 0 (mkOp [Some 0] [] [Some 5])); [reflexivity | | left; reflexivity].
      intros n [<- | []]. exact H0. }
    destruct Ht as [<- | [<- | []]]; [| exact H5].
    apply (der_op _ _ 1 (mkOp [Some 5] [] [Some 1])); [reflexivity | | left; reflexivity].
    intros n [<- | []]. exact H5.
  - split; [apply run_fuel_steps | apply run_fuel_maximal; rewrite unfired_initial; auto].
Qed.

Print Assumptions inline_premises_satisfiable.
Print Assumptions strict_call_needed.
Print Assumptions inline_omitted_premises_satisfiable.
