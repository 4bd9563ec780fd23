(** * The simulation behind [Inline.inline_matches_nested]
    (spec/graph.rst, section 3.6, GRAPH-FUNCTIONS).

    Relates a run of the caller under the nested reading of a function
    call to a run of the inlined graph: [sim] between the two states while
    the caller's other operations fire one for one ([sim_caller_step]),
    [bsim] while the renamed body runs as a block of steps in place of the
    call ([bsim_steps]), and [call_block], which puts the call's firing and
    that block together. [Inline.v] assembles them into whole runs. *)


From Coq Require Import List Arith Lia Bool.
From SONNX Require Import Semantics Termination OrderIndependence C3 InlineGraph.
Import ListNotations.

Section Inline.

Context {V : Type}.

(** The parameters of [InlineGraph.v]'s section, explained there: a
    section is local to its file, so they are declared again. *)
Variable it : nat -> list (option V) -> list (option V) -> list V.
Variable ib : nat -> list (option V) -> list (option V) -> list V.
Variable undef : V.
Variable g : graph.
Variable c : nat.
Variable fb : graph.
Variable ren : nat -> nat.

Local Notation fin := (g_inputs fb).
Local Notation fout := (g_outputs fb).
Local Notation m := (length (g_ops fb)).

Local Notation nested_interp := (InlineGraph.nested_interp it ib undef c fb).
Local Notation inline_interp := (InlineGraph.inline_interp it ib c fb).
Local Notation inline_graph := (InlineGraph.inline_graph g c fb ren).
Local Notation call_op := (InlineGraph.call_op fb ren).
Local Notation internal := (InlineGraph.internal fb).
Local Notation nonfresh := (InlineGraph.nonfresh fb ren).
Local Notation g_tensor := (InlineGraph.g_tensor g).
Local Notation pos := (InlineGraph.pos c fb).
Local Notation ren_op := (InlineGraph.ren_op ren).
Local Notation fill_out := (InlineGraph.fill_out undef).
Local Notation nothing := (@InlineGraph.nothing V).

(** ** Premises *)

(** The premises of [Inline.inline_matches_nested], which states and
    explains them. *)
Section Proofs.

Hypothesis H_call : nth_error (g_ops g) c = Some call_op.
Hypothesis H_noinit : g_inits fb = [].
Hypothesis H_nocap : g_captures fb = [].
Hypothesis H_io : forall u, In u fin -> ~ In u fout.
Hypothesis H_inj : forall u x, ~ In x fin -> ren u = ren x -> u = x.
Hypothesis H_fresh : forall u, internal u -> ~ g_tensor (ren u).
Hypothesis H_c1g : c1_assign g.
Hypothesis H_c1b : c1_assign fb.
Hypothesis H_arb : arity_ok ib fb.
Hypothesis H_c3b : forall inp, (forall x, In x fin -> inp x <> None) ->
  c3_fixpoint fb (initial_state fb inp nothing nothing).

(** Lemmas of [InlineGraph.v] with this section's premises applied (the
    others are used by their global names, their premises found by
    unification). *)
Local Notation nth_body := (InlineGraph.nth_body g c fb ren H_call).
Local Notation pos_body := (InlineGraph.pos_body c fb).
Local Notation g_tensor_nonfresh := (InlineGraph.g_tensor_nonfresh g fb ren H_fresh).
Local Notation required_g_tensor := (InlineGraph.required_g_tensor g).
Local Notation output_g_tensor := (InlineGraph.output_g_tensor g).
Local Notation body_out_not_in := (InlineGraph.body_out_not_in fb H_c1b).
Local Notation write_ren := (@InlineGraph.write_ren V fb ren H_inj).
Local Notation write_ren_other := (@InlineGraph.write_ren_other V fb ren).

(** ** The simulation relation *)

(** [sim s s' bv bf]: the caller state [s] (nested reading) and the inlined
    state [s'] agree on every name that is not fresh; the fresh names hold
    the body's values [bv]; the operations fired in [s'] are the caller's
    (but the call) at their new positions and the body operations [bf]. *)
Definition sim (s s' : @state V) (bv : nat -> option V) (bf : list nat) : Prop :=
  (forall t, nonfresh t -> vals s' t = vals s t) /\
  (forall u, internal u -> vals s' (ren u) = bv u) /\
  (forall j, In j bf -> j < m) /\
  (forall k, In k (fired s') <->
     (exists i, In i (fired s) /\ i <> c /\ k = pos i) \/ (exists j, In j bf /\ k = c + j)).

Lemma sim_caller_step : forall s s' bv bf i,
  sim s s' bv bf -> i <> c -> executable g s i ->
  executable inline_graph s' (pos i) /\
  sim (fire nested_interp g s i) (fire inline_interp inline_graph s' (pos i)) bv bf.
Proof.
  intros s s' bv bf i [Hv [Hb [Hbf Hf]]] Hne [o [Ho [Hn Hr]]].
  assert (Ho' : nth_error (g_ops inline_graph) (pos i) = Some o) by (apply nth_caller; auto).
  assert (Hreq : forall n, In n (required o) -> vals s' n = vals s n).
  { intros n Hin. apply Hv. apply g_tensor_nonfresh. apply (required_g_tensor i o); auto. }
  split.
  - exists o. repeat split; auto.
    + intros Hin. apply Hf in Hin. destruct Hin as [[i' [Hi' [Hne' E]]] | [j [Hj E]]].
      * apply pos_inj in E; auto. subst. contradiction.
      * apply (pos_body i j); auto.
    + intros n Hin. unfold defined. rewrite Hreq; auto. apply Hr. exact Hin.
  - assert (Hres : results inline_interp s' (pos i) o = results nested_interp s i o).
    { transitivity (results nested_interp s' i o); [unfold results; apply interp_caller; exact Hne |].
      apply results_agree. exact Hreq. }
    unfold sim. rewrite (fire_vals inline_interp inline_graph s' (pos i) o Ho'), (fire_fired inline_interp inline_graph s' (pos i) o Ho').
    rewrite (fire_vals nested_interp g s i o Ho), (fire_fired nested_interp g s i o Ho).
    split; [| split; [| split]]; simpl.
    + intros t Ht. rewrite Hres. apply write_pointwise. apply Hv. exact Ht.
    + intros u Hu. rewrite write_other; [apply Hb; exact Hu |].
      intros Hin. apply (H_fresh u Hu). apply (output_g_tensor i o); auto.
    + exact Hbf.
    + intros k. rewrite Hf. split.
      * intros [E | [[i' [Hi' [Hne' E]]] | Hj]]; [left; exists i; auto | left; exists i'; auto | right; exact Hj].
      * intros [[i' [[E | Hi'] [Hne' E']]] | Hj]; [left; subst; reflexivity | | right; right; exact Hj].
        right. left. exists i'. auto.
Qed.

(** ** The call as a block of body steps *)

(** [bsim sb s2 s']: during the inlined body's run from [s'], the state
    [s2] holds the body state [sb] under the renaming, and is [s'] on
    every name the body cannot write. *)
Definition bsim (sb s2 s' : @state V) : Prop :=
  (forall u, vals s2 (ren u) = vals sb u) /\
  (forall t, (forall x, ~ In x fin -> ren x <> t) -> vals s2 t = vals s' t) /\
  (forall j, In j (fired sb) -> j < m) /\
  (forall k, In k (fired s2) <-> In k (fired s') \/ exists j, In j (fired sb) /\ k = c + j).

Lemma args_ren : forall (s2 sb : @state V) o, (forall u, vals s2 (ren u) = vals sb u) ->
  args s2 (ren_op o) = args sb o /\ imps s2 (ren_op o) = imps sb o.
Proof.
  intros s2 sb o Hv. unfold args, imps, ren_op. simpl. rewrite !map_map. split.
  - apply map_ext. intros [u |]; simpl; auto.
  - apply map_ext. intros u. apply Hv.
Qed.

Lemma bsim_step : forall s' sb s2 j,
  (forall j, j < m -> ~ In (c + j) (fired s')) -> bsim sb s2 s' -> executable fb sb j ->
  executable inline_graph s2 (c + j) /\
  bsim (fire ib fb sb j) (fire inline_interp inline_graph s2 (c + j)) s'.
Proof.
  intros s' sb s2 j Hfree [Hv [Ho [Hbf Hf]]] [o [Hoj [Hn Hr]]].
  assert (Hjm : j < m) by (apply nth_error_Some; rewrite Hoj; discriminate).
  assert (Ho' := nth_body j o Hoj).
  split.
  - exists (ren_op o). repeat split; auto.
    + intros Hin. apply Hf in Hin. destruct Hin as [Hin | [j' [Hj' E]]].
      * apply (Hfree j Hjm Hin).
      * assert (j' = j) as -> by lia. contradiction.
    + rewrite required_ren. intros n Hin. apply in_map_iff in Hin. destruct Hin as [u [<- Hu]].
      unfold defined. rewrite Hv. apply Hr. exact Hu.
  - assert (Hres : results inline_interp s2 (c + j) (ren_op o) = results ib sb j o).
    { unfold results. rewrite interp_body by exact Hjm.
      destruct (args_ren s2 sb o Hv) as [-> ->]. reflexivity. }
    assert (Hout : forall n, In (Some n) (op_outputs o) -> ~ In n fin)
      by (intros n Hn'; apply (body_out_not_in j o n); auto).
    unfold bsim. rewrite (fire_vals inline_interp inline_graph s2 (c + j) (ren_op o) Ho').
    rewrite (fire_fired inline_interp inline_graph s2 (c + j) (ren_op o) Ho').
    rewrite (fire_vals ib fb sb j o Hoj), (fire_fired ib fb sb j o Hoj). rewrite Hres. simpl.
    split; [| split; [| split]].
    + intros u. apply write_ren; auto.
    + intros t Ht. rewrite write_ren_other; auto.
    + intros j' [<- | Hj']; auto.
    + intros k. rewrite Hf. split.
      * intros [E | [Hk | [j' [Hj' E]]]]; [right; exists j; auto | left; exact Hk | right; exists j'; auto].
      * intros [Hk | [j' [[<- | Hj'] E]]]; [right; left; exact Hk | left; symmetry; exact E |].
        right. right. exists j'. auto.
Qed.

Lemma bsim_steps : forall s' n sb sb', steps ib fb n sb sb' ->
  (forall j, j < m -> ~ In (c + j) (fired s')) ->
  forall s2, bsim sb s2 s' ->
  exists s3, steps inline_interp inline_graph n s2 s3 /\ bsim sb' s3 s'.
Proof.
  intros s' n sb sb' R Hfree. induction R as [sb | n sb sb1 sb' [j [Hj ->]] _ IH]; intros s2 Hs.
  - exists s2. split; [constructor | exact Hs].
  - destruct (bsim_step s' sb s2 j Hfree Hs Hj) as [He Hs1].
    destruct (IH _ Hs1) as [s3 [R' Hs']]. exists s3. split; auto.
    econstructor; [| exact R']. exists (c + j). split; auto.
Qed.

Lemma bind_in_map : forall (f : nat -> option V) l u, In u l -> bind_in l (map f l) u = f u.
Proof.
  intros f l. induction l as [| x l IH]; intros u Hu; [destruct Hu |]. simpl.
  destruct (Nat.eqb_spec u x) as [-> | Hne]; auto.
  apply IH. destruct Hu as [-> | Hu]; [contradiction | exact Hu].
Qed.

Lemma call_required : forall x, In x fin -> In (ren x) (required call_op).
Proof.
  intros x Hx. unfold required. simpl. rewrite app_nil_r. apply in_flat_map.
  exists (Some (ren x)). split; [apply in_map_iff; exists x; auto | left; reflexivity].
Qed.

Lemma body_initial_vals : forall inp u,
  vals (initial_state fb inp nothing nothing) u = if mem u fin then inp u else None.
Proof.
  intros inp u. simpl. unfold initial_vals. rewrite H_noinit, H_nocap. simpl.
  destruct (mem u fin); [destruct (inp u) |]; reflexivity.
Qed.

(** Firing the call in the nested reading is simulated by the inlined
    body's run, as a block of steps. *)
Lemma call_block : forall s s',
  ~ In c (fired s) -> origin_inv g s -> sim s s' nothing [] -> executable g s c ->
  exists n s3, steps inline_interp inline_graph n s' s3 /\
    exists sb, maximal fb sb /\ (forall u, In u fin \/ In u fout -> defined sb u) /\
      sim (fire nested_interp g s c) s3 (vals sb) (fired sb).
Proof.
  intros s s' Hnc Hinv [Hv [Hb [_ Hf]]] [o [Ho [_ Hr]]].
  rewrite H_call in Ho. injection Ho as <-.
  set (a := args s call_op). set (sb0 := initial_state fb (bind_in fin a) nothing nothing).
  assert (Ha : forall x, In x fin -> bind_in fin a x = vals s (ren x)).
  { intros x Hx. unfold a, args. simpl. rewrite map_map. simpl.
    apply (bind_in_map (fun y => vals s (ren y))). exact Hx. }
  assert (Hdef0 : forall x, In x fin -> bind_in fin a x <> None).
  { intros x Hx. rewrite Ha by exact Hx. apply Hr. apply call_required. exact Hx. }
  assert (Hsb0 : forall u, vals sb0 u = if mem u fin then bind_in fin a u else None)
    by (intros u; apply body_initial_vals).
  destruct (maximal_run_exists ib fb sb0) as [[nb Rb] Mb].
  set (sb := run_fuel ib fb m sb0) in Rb, Mb.
  assert (Hsb_out : forall y, In y fout -> defined sb y).
  { intros y Hy. apply (derivable_defined ib fb sb0 sb H_arb eq_refl); [split; [exists nb; exact Rb | exact Mb] |].
    apply (H_c3b (bind_in fin a) Hdef0). exact Hy. }
  assert (Hsb_in : forall x, In x fin -> defined sb x).
  { intros x Hx. apply (steps_defined ib fb nb sb0); auto. unfold defined. rewrite Hsb0.
    rewrite (proj2 (mem_In x fin) Hx). apply Hdef0. exact Hx. }
  assert (Hfree : forall j, j < m -> ~ In (c + j) (fired s')).
  { intros j Hj Hin. apply Hf in Hin. destruct Hin as [[i [_ [Hne E]]] | [j' [[] _]]].
    apply (pos_body i j); auto. }
  assert (Hs0 : bsim sb0 s' s').
  { split; [| split; [| split]].
    - intros u. rewrite Hsb0. destruct (mem u fin) eqn:Em.
      + apply mem_In in Em. rewrite Ha by exact Em. apply Hv. apply g_tensor_nonfresh.
        apply (required_g_tensor c call_op); auto. apply call_required. exact Em.
      + apply mem_false in Em. destruct (In_dec Nat.eq_dec u fout) as [Hout | Hout].
        * rewrite Hv by (apply g_tensor_nonfresh; apply (output_g_tensor c call_op); auto;
                         apply call_outputs_in; exact Hout).
          destruct (vals s (ren u)) eqn:E; [exfalso | reflexivity].
          destruct (Hinv (ren u)) as [Hsrc | [k [ok [Hk [Hok Hkt]]]]]; [unfold defined; rewrite E; discriminate | |].
          -- destruct H_c1g as [_ Hs]. apply (Hs c call_op (ren u) H_call); auto; apply call_outputs_in; exact Hout.
          -- destruct H_c1g as [Hs _]. assert (k = c) as -> by (apply (Hs k c ok call_op (ren u)); auto;
               apply call_outputs_in; exact Hout). contradiction.
        * apply Hb. split; auto.
    - intros t _. reflexivity.
    - intros j [].
    - intros k. simpl. split; [intros H; left; exact H | intros [H | [j [[] _]]]; exact H]. }
  destruct (bsim_steps s' nb sb0 sb Rb Hfree s' Hs0) as [s3 [R' [Hv' [Ho' [Hbf' Hf']]]]].
  exists nb, s3. split; [exact R' |]. exists sb. split; [exact Mb |]. split.
  { intros u [Hu | Hu]; auto. }
  assert (Hres : results nested_interp s c call_op = fill_out (map (vals sb) fout)).
  { unfold results, nested_interp. rewrite Nat.eqb_refl. reflexivity. }
  unfold sim. rewrite (fire_vals nested_interp g s c call_op H_call), (fire_fired nested_interp g s c call_op H_call).
  rewrite Hres. simpl. split; [| split; [| split]].
  - intros t Ht. destruct (In_dec Nat.eq_dec t (map ren fout)) as [Hin | Hnin].
    + apply in_map_iff in Hin. destruct Hin as [y [<- Hy]].
      rewrite Hv'. destruct (vals sb y) as [v |] eqn:Ey; [| exfalso; apply (Hsb_out y Hy Ey)].
      symmetry. apply write_call; auto. intros x Hx E. apply (H_inj x y); auto.
      intros Hyi. apply (H_io y Hyi Hy).
    + rewrite Ho'.
      * rewrite Hv by exact Ht. symmetry. apply write_other. intros Hin. apply Hnin.
        apply in_map_iff in Hin. destruct Hin as [x [E Hx]]. injection E as E. apply in_map_iff. exists x. auto.
      * intros x Hx E. destruct (In_dec Nat.eq_dec x fout) as [Hxo | Hxo].
        -- apply Hnin. apply in_map_iff. exists x. auto.
        -- apply (Ht x); [split |]; auto.
  - intros u _. apply Hv'.
  - exact Hbf'.
  - intros k. rewrite Hf', Hf. split.
    + intros [[[i [Hi [Hne E]]] | [j [[] _]]] | Hj]; [left; exists i; auto | right; exact Hj].
    + intros [[i [[E | Hi] [Hne E']]] | Hj]; [subst; contradiction | | right; exact Hj].
      left. left. exists i. auto.
Qed.

End Proofs.

End Inline.
